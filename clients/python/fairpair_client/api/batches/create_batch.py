from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.batch_create import BatchCreate
from ...models.batch_read import BatchRead
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: BatchCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["idempotency-key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/batches",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | BatchRead | Problem | None:
    if response.status_code == 202:
        response_202 = BatchRead.from_dict(response.json())

        return response_202

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
) -> Response[Any | BatchRead | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BatchCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[Any | BatchRead | Problem]:
    """Create Batch

     Queue compare and score items to run in the background; 202 with the batch.

    Args:
        idempotency_key (None | str | Unset):
        body (BatchCreate): Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the
            background.

            Send it as JSON (`Content-Type: application/json`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchRead | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BatchCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Any | BatchRead | Problem | None:
    """Create Batch

     Queue compare and score items to run in the background; 202 with the batch.

    Args:
        idempotency_key (None | str | Unset):
        body (BatchCreate): Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the
            background.

            Send it as JSON (`Content-Type: application/json`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchRead | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BatchCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[Any | BatchRead | Problem]:
    """Create Batch

     Queue compare and score items to run in the background; 202 with the batch.

    Args:
        idempotency_key (None | str | Unset):
        body (BatchCreate): Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the
            background.

            Send it as JSON (`Content-Type: application/json`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | BatchRead | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BatchCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Any | BatchRead | Problem | None:
    """Create Batch

     Queue compare and score items to run in the background; 202 with the batch.

    Args:
        idempotency_key (None | str | Unset):
        body (BatchCreate): Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the
            background.

            Send it as JSON (`Content-Type: application/json`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | BatchRead | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
