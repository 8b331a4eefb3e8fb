from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch_list import BatchList
from ...models.list_batches_mode_type_0 import ListBatchesModeType0
from ...models.list_batches_status_type_0 import ListBatchesStatusType0
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: ListBatchesStatusType0 | None | Unset = UNSET,
    mode: ListBatchesModeType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListBatchesStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    json_mode: None | str | Unset
    if isinstance(mode, Unset):
        json_mode = UNSET
    elif isinstance(mode, ListBatchesModeType0):
        json_mode = mode.value
    else:
        json_mode = mode
    params["mode"] = json_mode

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
        "url": "/v1/batches",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | BatchList | Problem | None:
    if response.status_code == 200:
        response_200 = BatchList.from_dict(response.json())

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
        response_404 = cast(Any, None)
        return response_404

    if response.status_code == 409:
        response_409 = cast(Any, None)
        return response_409

    if response.status_code == 413:
        response_413 = cast(Any, None)
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
        response_503 = cast(Any, None)
        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Any | BatchList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    status: ListBatchesStatusType0 | None | Unset = UNSET,
    mode: ListBatchesModeType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Response[Any | BatchList | Problem]:
    """List Batches

     Batches, newest first, each as `GET /v1/batches/{id}` shows it; `since` and `until`
    bound when they were submitted.

    Args:
        status (ListBatchesStatusType0 | None | Unset):
        mode (ListBatchesModeType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 20.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchList | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        mode=mode,
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
    status: ListBatchesStatusType0 | None | Unset = UNSET,
    mode: ListBatchesModeType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Any | BatchList | Problem | None:
    """List Batches

     Batches, newest first, each as `GET /v1/batches/{id}` shows it; `since` and `until`
    bound when they were submitted.

    Args:
        status (ListBatchesStatusType0 | None | Unset):
        mode (ListBatchesModeType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 20.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchList | Problem
    """

    return sync_detailed(
        client=client,
        status=status,
        mode=mode,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    status: ListBatchesStatusType0 | None | Unset = UNSET,
    mode: ListBatchesModeType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Response[Any | BatchList | Problem]:
    """List Batches

     Batches, newest first, each as `GET /v1/batches/{id}` shows it; `since` and `until`
    bound when they were submitted.

    Args:
        status (ListBatchesStatusType0 | None | Unset):
        mode (ListBatchesModeType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 20.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchList | Problem]
    """

    kwargs = _get_kwargs(
        status=status,
        mode=mode,
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
    status: ListBatchesStatusType0 | None | Unset = UNSET,
    mode: ListBatchesModeType0 | None | Unset = UNSET,
    since: None | str | Unset = UNSET,
    until: None | str | Unset = UNSET,
    limit: int | Unset = 20,
    cursor: None | str | Unset = UNSET,
) -> Any | BatchList | Problem | None:
    """List Batches

     Batches, newest first, each as `GET /v1/batches/{id}` shows it; `since` and `until`
    bound when they were submitted.

    Args:
        status (ListBatchesStatusType0 | None | Unset):
        mode (ListBatchesModeType0 | None | Unset):
        since (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        until (None | str | Unset): ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m)
            or Unix seconds
        limit (int | Unset):  Default: 20.
        cursor (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            mode=mode,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
