from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.judge_fields_azure_auth import JudgeFieldsAzureAuth
from ..models.judge_fields_batch_api import JudgeFieldsBatchApi
from ..models.judge_fields_provider import JudgeFieldsProvider
from ..models.judge_fields_reasoning_effort_type_0 import JudgeFieldsReasoningEffortType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.judge_fields_templates import JudgeFieldsTemplates
    from ..models.sim_settings import SimSettings


T = TypeVar("T", bound="JudgeFields")


@_attrs_define
class JudgeFields:
    """Everything that configures a judge except its name and secret.

    Attributes:
        model (str):
        provider (JudgeFieldsProvider):
        api_key_env (None | str | Unset):
        api_version (None | str | Unset):
        azure_auth (JudgeFieldsAzureAuth | Unset): azure_openai: how the key variable's value is sent: `api_key` (an
            `api-key` header) or `entra_id` (a Microsoft Entra ID token, `Authorization: Bearer`) Default:
            JudgeFieldsAzureAuth.API_KEY.
        base_url (None | str | Unset):
        batch_api (JudgeFieldsBatchApi | Unset): whether provider-mode batches send this judge's calls to its provider's
            batch API; `auto`: for api.openai.com and api.anthropic.com only (vLLM, Ollama have none) Default:
            JudgeFieldsBatchApi.AUTO.
        cache (bool | Unset): answer an exact repeat of a call this judge version made before (same rendered prompt,
            labels, order and parameters) from the stored call, at no cost; not part of the version Default: False.
        deployment (None | str | Unset):
        family (None | str | Unset):
        json_mode (bool | None | Unset):
        label_pool (list[list[str]] | None | Unset):
        logprobs (bool | None | Unset):
        max_completion_tokens (int | None | Unset): sent as `max_completion_tokens` (a reasoning model counts its
            reasoning)
        max_concurrency (int | Unset):  Default: 8.
        price_in_per_mtok (float | Unset):  Default: 0.0.
        price_in_per_mtok_batch (float | None | Unset): through the provider's batch API; unset: half
        price_out_per_mtok (float | Unset):  Default: 0.0.
        price_out_per_mtok_batch (float | None | Unset): through the provider's batch API; unset: half
        reasoning (bool | Unset): an OpenAI reasoning model (o1, o3, o4-mini, gpt-5): its requests carry no
            `temperature` and no logprobs; implied by `reasoning_effort` Default: False.
        reasoning_effort (JudgeFieldsReasoningEffortType0 | None | Unset): sent as OpenAI's `reasoning_effort`; makes
            the judge a reasoning one
        rpm (int | None | Unset):
        sim (None | SimSettings | Unset):
        temperature (float | Unset):  Default: 0.0.
        templates (JudgeFieldsTemplates | Unset):
        thinking_budget_tokens (int | None | Unset): Anthropic extended thinking: sent as `thinking: {type: enabled,
            budget_tokens}`, with `max_tokens` raised by as much; the thinking is kept in the raw output, never parsed
        timeout_s (float | Unset):  Default: 60.0.
    """

    model: str
    provider: JudgeFieldsProvider
    api_key_env: None | str | Unset = UNSET
    api_version: None | str | Unset = UNSET
    azure_auth: JudgeFieldsAzureAuth | Unset = JudgeFieldsAzureAuth.API_KEY
    base_url: None | str | Unset = UNSET
    batch_api: JudgeFieldsBatchApi | Unset = JudgeFieldsBatchApi.AUTO
    cache: bool | Unset = False
    deployment: None | str | Unset = UNSET
    family: None | str | Unset = UNSET
    json_mode: bool | None | Unset = UNSET
    label_pool: list[list[str]] | None | Unset = UNSET
    logprobs: bool | None | Unset = UNSET
    max_completion_tokens: int | None | Unset = UNSET
    max_concurrency: int | Unset = 8
    price_in_per_mtok: float | Unset = 0.0
    price_in_per_mtok_batch: float | None | Unset = UNSET
    price_out_per_mtok: float | Unset = 0.0
    price_out_per_mtok_batch: float | None | Unset = UNSET
    reasoning: bool | Unset = False
    reasoning_effort: JudgeFieldsReasoningEffortType0 | None | Unset = UNSET
    rpm: int | None | Unset = UNSET
    sim: None | SimSettings | Unset = UNSET
    temperature: float | Unset = 0.0
    templates: JudgeFieldsTemplates | Unset = UNSET
    thinking_budget_tokens: int | None | Unset = UNSET
    timeout_s: float | Unset = 60.0

    def to_dict(self) -> dict[str, Any]:
        from ..models.sim_settings import SimSettings  # noqa: PLC0415

        model = self.model

        provider = self.provider.value

        api_key_env: None | str | Unset
        if isinstance(self.api_key_env, Unset):
            api_key_env = UNSET
        else:
            api_key_env = self.api_key_env

        api_version: None | str | Unset
        if isinstance(self.api_version, Unset):
            api_version = UNSET
        else:
            api_version = self.api_version

        azure_auth: str | Unset = UNSET
        if not isinstance(self.azure_auth, Unset):
            azure_auth = self.azure_auth.value

        base_url: None | str | Unset
        if isinstance(self.base_url, Unset):
            base_url = UNSET
        else:
            base_url = self.base_url

        batch_api: str | Unset = UNSET
        if not isinstance(self.batch_api, Unset):
            batch_api = self.batch_api.value

        cache = self.cache

        deployment: None | str | Unset
        if isinstance(self.deployment, Unset):
            deployment = UNSET
        else:
            deployment = self.deployment

        family: None | str | Unset
        if isinstance(self.family, Unset):
            family = UNSET
        else:
            family = self.family

        json_mode: bool | None | Unset
        if isinstance(self.json_mode, Unset):
            json_mode = UNSET
        else:
            json_mode = self.json_mode

        label_pool: list[list[str]] | None | Unset
        if isinstance(self.label_pool, Unset):
            label_pool = UNSET
        elif isinstance(self.label_pool, list):
            label_pool = []
            for label_pool_type_0_item_data in self.label_pool:
                label_pool_type_0_item = []
                for label_pool_type_0_item_item_data in label_pool_type_0_item_data:
                    label_pool_type_0_item_item: str
                    label_pool_type_0_item_item = label_pool_type_0_item_item_data
                    label_pool_type_0_item.append(label_pool_type_0_item_item)

                label_pool.append(label_pool_type_0_item)

        else:
            label_pool = self.label_pool

        logprobs: bool | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        max_completion_tokens: int | None | Unset
        if isinstance(self.max_completion_tokens, Unset):
            max_completion_tokens = UNSET
        else:
            max_completion_tokens = self.max_completion_tokens

        max_concurrency = self.max_concurrency

        price_in_per_mtok = self.price_in_per_mtok

        price_in_per_mtok_batch: float | None | Unset
        if isinstance(self.price_in_per_mtok_batch, Unset):
            price_in_per_mtok_batch = UNSET
        else:
            price_in_per_mtok_batch = self.price_in_per_mtok_batch

        price_out_per_mtok = self.price_out_per_mtok

        price_out_per_mtok_batch: float | None | Unset
        if isinstance(self.price_out_per_mtok_batch, Unset):
            price_out_per_mtok_batch = UNSET
        else:
            price_out_per_mtok_batch = self.price_out_per_mtok_batch

        reasoning = self.reasoning

        reasoning_effort: None | str | Unset
        if isinstance(self.reasoning_effort, Unset):
            reasoning_effort = UNSET
        elif isinstance(self.reasoning_effort, JudgeFieldsReasoningEffortType0):
            reasoning_effort = self.reasoning_effort.value
        else:
            reasoning_effort = self.reasoning_effort

        rpm: int | None | Unset
        if isinstance(self.rpm, Unset):
            rpm = UNSET
        else:
            rpm = self.rpm

        sim: dict[str, Any] | None | Unset
        if isinstance(self.sim, Unset):
            sim = UNSET
        elif isinstance(self.sim, SimSettings):
            sim = self.sim.to_dict()
        else:
            sim = self.sim

        temperature = self.temperature

        templates: dict[str, Any] | Unset = UNSET
        if not isinstance(self.templates, Unset):
            templates = self.templates.to_dict()

        thinking_budget_tokens: int | None | Unset
        if isinstance(self.thinking_budget_tokens, Unset):
            thinking_budget_tokens = UNSET
        else:
            thinking_budget_tokens = self.thinking_budget_tokens

        timeout_s = self.timeout_s

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "model": model,
                "provider": provider,
            }
        )
        if api_key_env is not UNSET:
            field_dict["api_key_env"] = api_key_env
        if api_version is not UNSET:
            field_dict["api_version"] = api_version
        if azure_auth is not UNSET:
            field_dict["azure_auth"] = azure_auth
        if base_url is not UNSET:
            field_dict["base_url"] = base_url
        if batch_api is not UNSET:
            field_dict["batch_api"] = batch_api
        if cache is not UNSET:
            field_dict["cache"] = cache
        if deployment is not UNSET:
            field_dict["deployment"] = deployment
        if family is not UNSET:
            field_dict["family"] = family
        if json_mode is not UNSET:
            field_dict["json_mode"] = json_mode
        if label_pool is not UNSET:
            field_dict["label_pool"] = label_pool
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if max_completion_tokens is not UNSET:
            field_dict["max_completion_tokens"] = max_completion_tokens
        if max_concurrency is not UNSET:
            field_dict["max_concurrency"] = max_concurrency
        if price_in_per_mtok is not UNSET:
            field_dict["price_in_per_mtok"] = price_in_per_mtok
        if price_in_per_mtok_batch is not UNSET:
            field_dict["price_in_per_mtok_batch"] = price_in_per_mtok_batch
        if price_out_per_mtok is not UNSET:
            field_dict["price_out_per_mtok"] = price_out_per_mtok
        if price_out_per_mtok_batch is not UNSET:
            field_dict["price_out_per_mtok_batch"] = price_out_per_mtok_batch
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if reasoning_effort is not UNSET:
            field_dict["reasoning_effort"] = reasoning_effort
        if rpm is not UNSET:
            field_dict["rpm"] = rpm
        if sim is not UNSET:
            field_dict["sim"] = sim
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if templates is not UNSET:
            field_dict["templates"] = templates
        if thinking_budget_tokens is not UNSET:
            field_dict["thinking_budget_tokens"] = thinking_budget_tokens
        if timeout_s is not UNSET:
            field_dict["timeout_s"] = timeout_s

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.judge_fields_templates import JudgeFieldsTemplates  # noqa: PLC0415
        from ..models.sim_settings import SimSettings  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        provider = JudgeFieldsProvider(d.pop("provider"))

        def _parse_api_key_env(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        api_key_env = _parse_api_key_env(d.pop("api_key_env", UNSET))

        def _parse_api_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        api_version = _parse_api_version(d.pop("api_version", UNSET))

        _azure_auth = d.pop("azure_auth", UNSET)
        azure_auth: JudgeFieldsAzureAuth | Unset
        if isinstance(_azure_auth, Unset):
            azure_auth = UNSET
        else:
            azure_auth = JudgeFieldsAzureAuth(_azure_auth)

        def _parse_base_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        base_url = _parse_base_url(d.pop("base_url", UNSET))

        _batch_api = d.pop("batch_api", UNSET)
        batch_api: JudgeFieldsBatchApi | Unset
        if isinstance(_batch_api, Unset):
            batch_api = UNSET
        else:
            batch_api = JudgeFieldsBatchApi(_batch_api)

        cache = d.pop("cache", UNSET)

        def _parse_deployment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deployment = _parse_deployment(d.pop("deployment", UNSET))

        def _parse_family(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        family = _parse_family(d.pop("family", UNSET))

        def _parse_json_mode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        json_mode = _parse_json_mode(d.pop("json_mode", UNSET))

        def _parse_label_pool(data: object) -> list[list[str]] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                label_pool_type_0 = []
                _label_pool_type_0 = data
                for label_pool_type_0_item_data in _label_pool_type_0:
                    label_pool_type_0_item = []
                    _label_pool_type_0_item = label_pool_type_0_item_data
                    for label_pool_type_0_item_item_data in _label_pool_type_0_item:

                        def _parse_label_pool_type_0_item_item(data: object) -> str:
                            return cast(str, data)

                        label_pool_type_0_item_item = _parse_label_pool_type_0_item_item(
                            label_pool_type_0_item_item_data
                        )

                        label_pool_type_0_item.append(label_pool_type_0_item_item)

                    label_pool_type_0.append(label_pool_type_0_item)

                return label_pool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[list[str]] | None | Unset, data)

        label_pool = _parse_label_pool(d.pop("label_pool", UNSET))

        def _parse_logprobs(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        def _parse_max_completion_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_completion_tokens = _parse_max_completion_tokens(d.pop("max_completion_tokens", UNSET))

        max_concurrency = d.pop("max_concurrency", UNSET)

        price_in_per_mtok = d.pop("price_in_per_mtok", UNSET)

        def _parse_price_in_per_mtok_batch(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price_in_per_mtok_batch = _parse_price_in_per_mtok_batch(d.pop("price_in_per_mtok_batch", UNSET))

        price_out_per_mtok = d.pop("price_out_per_mtok", UNSET)

        def _parse_price_out_per_mtok_batch(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        price_out_per_mtok_batch = _parse_price_out_per_mtok_batch(d.pop("price_out_per_mtok_batch", UNSET))

        reasoning = d.pop("reasoning", UNSET)

        def _parse_reasoning_effort(data: object) -> JudgeFieldsReasoningEffortType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reasoning_effort_type_0 = JudgeFieldsReasoningEffortType0(data)

                return reasoning_effort_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JudgeFieldsReasoningEffortType0 | None | Unset, data)

        reasoning_effort = _parse_reasoning_effort(d.pop("reasoning_effort", UNSET))

        def _parse_rpm(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rpm = _parse_rpm(d.pop("rpm", UNSET))

        def _parse_sim(data: object) -> None | SimSettings | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sim_type_0 = SimSettings.from_dict(data)

                return sim_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SimSettings | Unset, data)

        sim = _parse_sim(d.pop("sim", UNSET))

        temperature = d.pop("temperature", UNSET)

        _templates = d.pop("templates", UNSET)
        templates: JudgeFieldsTemplates | Unset
        if isinstance(_templates, Unset):
            templates = UNSET
        else:
            templates = JudgeFieldsTemplates.from_dict(_templates)

        def _parse_thinking_budget_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        thinking_budget_tokens = _parse_thinking_budget_tokens(d.pop("thinking_budget_tokens", UNSET))

        timeout_s = d.pop("timeout_s", UNSET)

        judge_fields = cls(
            model=model,
            provider=provider,
            api_key_env=api_key_env,
            api_version=api_version,
            azure_auth=azure_auth,
            base_url=base_url,
            batch_api=batch_api,
            cache=cache,
            deployment=deployment,
            family=family,
            json_mode=json_mode,
            label_pool=label_pool,
            logprobs=logprobs,
            max_completion_tokens=max_completion_tokens,
            max_concurrency=max_concurrency,
            price_in_per_mtok=price_in_per_mtok,
            price_in_per_mtok_batch=price_in_per_mtok_batch,
            price_out_per_mtok=price_out_per_mtok,
            price_out_per_mtok_batch=price_out_per_mtok_batch,
            reasoning=reasoning,
            reasoning_effort=reasoning_effort,
            rpm=rpm,
            sim=sim,
            temperature=temperature,
            templates=templates,
            thinking_budget_tokens=thinking_budget_tokens,
            timeout_s=timeout_s,
        )

        return judge_fields
