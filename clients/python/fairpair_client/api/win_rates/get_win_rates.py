from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_win_rates_origin import GetWinRatesOrigin
from ...models.problem import Problem
from ...models.win_rates import WinRates
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    model: str,
    baseline: str,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetWinRatesOrigin | Unset = GetWinRatesOrigin.TRAFFIC,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["model"] = model

    params["baseline"] = baseline

    json_judge: None | str | Unset
    if isinstance(judge, Unset):
        json_judge = UNSET
    else:
        json_judge = judge
    params["judge"] = json_judge

    json_since: None | str | Unset
    if isinstance(since, Unset):
        json_since = UNSET
    else:
        json_since = since
    params["since"] = json_since

    json_until: None | str | Unset
    if isinstance(until, Unset):
        json_until = UNSET
    else:
        json_until = until
    params["until"] = json_until

    json_tag: list[str] | None | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    elif isinstance(tag, list):
        json_tag = tag

    else:
        json_tag = tag
    params["tag"] = json_tag

    json_origin: str | Unset = UNSET
    if not isinstance(origin, Unset):
        json_origin = origin.value

    params["origin"] = json_origin

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/win-rates",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | Problem | WinRates | None:
    if response.status_code == 200:
        response_200 = WinRates.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = cast(Any, None)
        return response_401

    if response.status_code == 403:
        response_403 = cast(Any, None)
        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = cast(Any, None)
        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 502:
        response_502 = Problem.from_dict(response.json())

        return response_502

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | Problem | WinRates]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    model: str,
    baseline: str,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetWinRatesOrigin | Unset = GetWinRatesOrigin.TRAFFIC,
) -> Response[Any | Problem | WinRates]:
    """Get Win Rates

     The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++.

    Args:
        model (str): the model whose win rate is estimated
        baseline (str): the model it is compared with
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetWinRatesOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetWinRatesOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | WinRates]
    """

    kwargs = _get_kwargs(
        model=model,
        baseline=baseline,
        judge=judge,
        since=since,
        until=until,
        tag=tag,
        origin=origin,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    model: str,
    baseline: str,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetWinRatesOrigin | Unset = GetWinRatesOrigin.TRAFFIC,
) -> Any | Problem | WinRates | None:
    """Get Win Rates

     The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++.

    Args:
        model (str): the model whose win rate is estimated
        baseline (str): the model it is compared with
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetWinRatesOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetWinRatesOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | WinRates
    """

    return sync_detailed(
        client=client,
        model=model,
        baseline=baseline,
        judge=judge,
        since=since,
        until=until,
        tag=tag,
        origin=origin,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    model: str,
    baseline: str,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetWinRatesOrigin | Unset = GetWinRatesOrigin.TRAFFIC,
) -> Response[Any | Problem | WinRates]:
    """Get Win Rates

     The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++.

    Args:
        model (str): the model whose win rate is estimated
        baseline (str): the model it is compared with
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetWinRatesOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetWinRatesOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem | WinRates]
    """

    kwargs = _get_kwargs(
        model=model,
        baseline=baseline,
        judge=judge,
        since=since,
        until=until,
        tag=tag,
        origin=origin,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    model: str,
    baseline: str,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetWinRatesOrigin | Unset = GetWinRatesOrigin.TRAFFIC,
) -> Any | Problem | WinRates | None:
    """Get Win Rates

     The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++.

    Args:
        model (str): the model whose win rate is estimated
        baseline (str): the model it is compared with
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetWinRatesOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetWinRatesOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem | WinRates
    """

    return (
        await asyncio_detailed(
            client=client,
            model=model,
            baseline=baseline,
            judge=judge,
            since=since,
            until=until,
            tag=tag,
            origin=origin,
        )
    ).parsed
