from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch_item_list import BatchItemList
from ...models.list_batch_results_format_type_0 import ListBatchResultsFormatType0
from ...models.list_batch_results_status_type_0 import ListBatchResultsStatusType0
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    batch_id: str,
    *,
    status: ListBatchResultsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    format_: ListBatchResultsFormatType0 | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListBatchResultsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_format_: None | str | Unset
    if isinstance(format_, Unset):
        json_format_ = UNSET
    elif isinstance(format_, ListBatchResultsFormatType0):
        json_format_ = format_.value
    else:
        json_format_ = format_
    params["format"] = json_format_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/batches/{batch_id}/results".format(
            batch_id=quote(str(batch_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | BatchItemList | Problem | None:
    if response.status_code == 200:
        response_200 = BatchItemList.from_dict(response.json())

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
) -> Response[Any | BatchItemList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    batch_id: str,
    *,
    client: AuthenticatedClient,
    status: ListBatchResultsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    format_: ListBatchResultsFormatType0 | None | Unset = UNSET,
) -> Response[Any | BatchItemList | Problem]:
    """List Batch Results

     Items in submission order, each with its comparison (or score session) or its error;
    with `format`, all of them streamed as JSON Lines or CSV (`status`, `limit` and `cursor`
    then do not apply).

    Args:
        batch_id (str): the batch's id
        status (ListBatchResultsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):
        format_ (ListBatchResultsFormatType0 | None | Unset): every item as one file: `jsonl` (as
            the pages show them) or `csv`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchItemList | Problem]
    """

    kwargs = _get_kwargs(
        batch_id=batch_id,
        status=status,
        limit=limit,
        cursor=cursor,
        format_=format_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    batch_id: str,
    *,
    client: AuthenticatedClient,
    status: ListBatchResultsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    format_: ListBatchResultsFormatType0 | None | Unset = UNSET,
) -> Any | BatchItemList | Problem | None:
    """List Batch Results

     Items in submission order, each with its comparison (or score session) or its error;
    with `format`, all of them streamed as JSON Lines or CSV (`status`, `limit` and `cursor`
    then do not apply).

    Args:
        batch_id (str): the batch's id
        status (ListBatchResultsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):
        format_ (ListBatchResultsFormatType0 | None | Unset): every item as one file: `jsonl` (as
            the pages show them) or `csv`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchItemList | Problem
    """

    return sync_detailed(
        batch_id=batch_id,
        client=client,
        status=status,
        limit=limit,
        cursor=cursor,
        format_=format_,
    ).parsed


async def asyncio_detailed(
    batch_id: str,
    *,
    client: AuthenticatedClient,
    status: ListBatchResultsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    format_: ListBatchResultsFormatType0 | None | Unset = UNSET,
) -> Response[Any | BatchItemList | Problem]:
    """List Batch Results

     Items in submission order, each with its comparison (or score session) or its error;
    with `format`, all of them streamed as JSON Lines or CSV (`status`, `limit` and `cursor`
    then do not apply).

    Args:
        batch_id (str): the batch's id
        status (ListBatchResultsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):
        format_ (ListBatchResultsFormatType0 | None | Unset): every item as one file: `jsonl` (as
            the pages show them) or `csv`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchItemList | Problem]
    """

    kwargs = _get_kwargs(
        batch_id=batch_id,
        status=status,
        limit=limit,
        cursor=cursor,
        format_=format_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    batch_id: str,
    *,
    client: AuthenticatedClient,
    status: ListBatchResultsStatusType0 | None | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    format_: ListBatchResultsFormatType0 | None | Unset = UNSET,
) -> Any | BatchItemList | Problem | None:
    """List Batch Results

     Items in submission order, each with its comparison (or score session) or its error;
    with `format`, all of them streamed as JSON Lines or CSV (`status`, `limit` and `cursor`
    then do not apply).

    Args:
        batch_id (str): the batch's id
        status (ListBatchResultsStatusType0 | None | Unset):
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset):
        format_ (ListBatchResultsFormatType0 | None | Unset): every item as one file: `jsonl` (as
            the pages show them) or `csv`

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchItemList | Problem
    """

    return (
        await asyncio_detailed(
            batch_id=batch_id,
            client=client,
            status=status,
            limit=limit,
            cursor=cursor,
            format_=format_,
        )
    ).parsed
