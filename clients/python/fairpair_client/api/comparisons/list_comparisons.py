from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.comparison_list import ComparisonList
from ...models.list_comparisons_status_type_0 import ListComparisonsStatusType0
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    judge: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    status: ListComparisonsStatusType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_judge: None | str | Unset
    if isinstance(judge, Unset):
        json_judge = UNSET
    else:
        json_judge = judge
    params["judge"] = json_judge

    json_tag: list[str] | None | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    elif isinstance(tag, list):
        json_tag = tag

    else:
        json_tag = tag
    params["tag"] = json_tag

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListComparisonsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

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

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/comparisons",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ComparisonList | Problem | None:
    if response.status_code == 200:
        response_200 = ComparisonList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

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
        response_422 = Problem.from_dict(response.json())

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
) -> Response[ComparisonList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    status: ListComparisonsStatusType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
) -> Response[ComparisonList | Problem]:
    """List Comparisons

     Stored comparisons, newest first; tags are `key:value` and ANDed.

    Args:
        judge (None | str | Unset):
        tag (list[str] | None | Unset):
        status (ListComparisonsStatusType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonList | Problem]
    """

    kwargs = _get_kwargs(
        judge=judge,
        tag=tag,
        status=status,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    status: ListComparisonsStatusType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
) -> ComparisonList | Problem | None:
    """List Comparisons

     Stored comparisons, newest first; tags are `key:value` and ANDed.

    Args:
        judge (None | str | Unset):
        tag (list[str] | None | Unset):
        status (ListComparisonsStatusType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonList | Problem
    """

    return sync_detailed(
        client=client,
        judge=judge,
        tag=tag,
        status=status,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    status: ListComparisonsStatusType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
) -> Response[ComparisonList | Problem]:
    """List Comparisons

     Stored comparisons, newest first; tags are `key:value` and ANDed.

    Args:
        judge (None | str | Unset):
        tag (list[str] | None | Unset):
        status (ListComparisonsStatusType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonList | Problem]
    """

    kwargs = _get_kwargs(
        judge=judge,
        tag=tag,
        status=status,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    status: ListComparisonsStatusType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
) -> ComparisonList | Problem | None:
    """List Comparisons

     Stored comparisons, newest first; tags are `key:value` and ANDed.

    Args:
        judge (None | str | Unset):
        tag (list[str] | None | Unset):
        status (ListComparisonsStatusType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            judge=judge,
            tag=tag,
            status=status,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
