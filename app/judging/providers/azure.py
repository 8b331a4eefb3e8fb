"""Judges behind Azure OpenAI: the Chat Completions body of an `openai` judge, sent to
`{base_url}/openai/deployments/{deployment}/chat/completions?api-version={api_version}` with the
key in an `api-key` header, or a Microsoft Entra ID token as `Authorization: Bearer`
(`azure_auth = "entra_id"`).

The deployment selects the model, so the body carries no `model` (Azure's REST reference has
none); everything else (reasoning settings, JSON mode, logprobs when asked) is the `openai`
judge's. The path and its one query parameter come from app/judging/egress.py's Azure rule.
Azure's Batch API is another API and is not built: such a judge's calls run live
(`JudgeConfig.has_batch_api` is false, `batch_api = on` is refused where a judge is defined).
"""

from __future__ import annotations

from typing import Any, Unpack

from app.judging.egress import azure_path
from app.judging.judge import ChatRequest
from app.judging.providers.http import Connection
from app.judging.providers.openai import OpenAIBatchApi, OpenAIJudge
from app.judging.types import AZURE_NO_BATCH_API, JudgeConfig


class AzureOpenAIJudge(OpenAIJudge):
    """A judge behind one Azure OpenAI deployment."""

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        if config.deployment is None or config.api_version is None:
            raise ValueError(f"judge '{config.name}' needs a deployment and an api_version")
        self._path = self.base_path + azure_path(config.deployment, config.api_version)
        # No key, no header: Azure answers 401, which fails the call as `auth`.
        self._headers = {}
        if config.api_key and config.azure_auth == "entra_id":
            self._headers = {"Authorization": f"Bearer {config.api_key}"}
        elif config.api_key:
            self._headers = {"api-key": config.api_key}

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The `openai` judge's body without `model`: the deployment names the model."""
        body = super().request_body(request)
        del body["model"]
        return body

    def batch_api(self) -> OpenAIBatchApi:
        """None: Azure's Batch API is not OpenAI's, and is not built."""
        raise ValueError(AZURE_NO_BATCH_API)
