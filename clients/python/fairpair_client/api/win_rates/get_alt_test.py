from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.alt_test import AltTest
from ...models.get_alt_test_origin import GetAltTestOrigin
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    epsilon: float | Unset = 0.2,
    q: float | Unset = 0.05,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetAltTestOrigin | Unset = GetAltTestOrigin.TRAFFIC,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["epsilon"] = epsilon

    params["q"] = q

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
        "url": "/v1/alt-test",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AltTest | Any | Problem | None:
    if response.status_code == 200:
        response_200 = AltTest.from_dict(response.json())

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
) -> Response[AltTest | Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    epsilon: float | Unset = 0.2,
    q: float | Unset = 0.05,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetAltTestOrigin | Unset = GetAltTestOrigin.TRAFFIC,
) -> Response[AltTest | Any | Problem]:
    """Get Alt Test

     Can each judge replace a human labeler? The alternative-annotator test (Calderon,
    Reichart and Dror, 2025) over the comparisons that several labelers labelled from the
    random queue: per labeler left out, a paired t-test with margin `epsilon`, Benjamini-
    Yekutieli across labelers; the judge passes when it wins against half of them or more.

    Args:
        epsilon (float | Unset): cost-benefit margin granted to the judge: the authors suggest 0.2
            for expert labelers, 0.15 for skilled ones, 0.1 for crowd workers Default: 0.2.
        q (float | Unset): false discovery rate across labelers Default: 0.05.
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetAltTestOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetAltTestOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AltTest | Any | Problem]
    """

    kwargs = _get_kwargs(
        epsilon=epsilon,
        q=q,
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
    epsilon: float | Unset = 0.2,
    q: float | Unset = 0.05,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetAltTestOrigin | Unset = GetAltTestOrigin.TRAFFIC,
) -> AltTest | Any | Problem | None:
    """Get Alt Test

     Can each judge replace a human labeler? The alternative-annotator test (Calderon,
    Reichart and Dror, 2025) over the comparisons that several labelers labelled from the
    random queue: per labeler left out, a paired t-test with margin `epsilon`, Benjamini-
    Yekutieli across labelers; the judge passes when it wins against half of them or more.

    Args:
        epsilon (float | Unset): cost-benefit margin granted to the judge: the authors suggest 0.2
            for expert labelers, 0.15 for skilled ones, 0.1 for crowd workers Default: 0.2.
        q (float | Unset): false discovery rate across labelers Default: 0.05.
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetAltTestOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetAltTestOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AltTest | Any | Problem
    """

    return sync_detailed(
        client=client,
        epsilon=epsilon,
        q=q,
        judge=judge,
        since=since,
        until=until,
        tag=tag,
        origin=origin,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    epsilon: float | Unset = 0.2,
    q: float | Unset = 0.05,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetAltTestOrigin | Unset = GetAltTestOrigin.TRAFFIC,
) -> Response[AltTest | Any | Problem]:
    """Get Alt Test

     Can each judge replace a human labeler? The alternative-annotator test (Calderon,
    Reichart and Dror, 2025) over the comparisons that several labelers labelled from the
    random queue: per labeler left out, a paired t-test with margin `epsilon`, Benjamini-
    Yekutieli across labelers; the judge passes when it wins against half of them or more.

    Args:
        epsilon (float | Unset): cost-benefit margin granted to the judge: the authors suggest 0.2
            for expert labelers, 0.15 for skilled ones, 0.1 for crowd workers Default: 0.2.
        q (float | Unset): false discovery rate across labelers Default: 0.05.
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetAltTestOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetAltTestOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AltTest | Any | Problem]
    """

    kwargs = _get_kwargs(
        epsilon=epsilon,
        q=q,
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
    epsilon: float | Unset = 0.2,
    q: float | Unset = 0.05,
    judge: None | str | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    origin: GetAltTestOrigin | Unset = GetAltTestOrigin.TRAFFIC,
) -> AltTest | Any | Problem | None:
    """Get Alt Test

     Can each judge replace a human labeler? The alternative-annotator test (Calderon,
    Reichart and Dror, 2025) over the comparisons that several labelers labelled from the
    random queue: per labeler left out, a paired t-test with margin `epsilon`, Benjamini-
    Yekutieli across labelers; the judge passes when it wins against half of them or more.

    Args:
        epsilon (float | Unset): cost-benefit margin granted to the judge: the authors suggest 0.2
            for expert labelers, 0.15 for skilled ones, 0.1 for crowd workers Default: 0.2.
        q (float | Unset): false discovery rate across labelers Default: 0.05.
        judge (None | str | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        tag (list[str] | None | Unset):
        origin (GetAltTestOrigin | Unset): whose comparisons: callers' `traffic`, drift `canary`
            runs, or `all` Default: GetAltTestOrigin.TRAFFIC.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AltTest | Any | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            epsilon=epsilon,
            q=q,
            judge=judge,
            since=since,
            until=until,
            tag=tag,
            origin=origin,
        )
    ).parsed
