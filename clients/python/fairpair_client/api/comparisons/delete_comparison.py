from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.comparisons_deleted import ComparisonsDeleted
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    comparison_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/comparisons/{comparison_id}".format(
            comparison_id=quote(str(comparison_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ComparisonsDeleted | Problem | None:
    if response.status_code == 200:
        response_200 = ComparisonsDeleted.from_dict(response.json())

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
) -> Response[ComparisonsDeleted | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ComparisonsDeleted | Problem]:
    """Delete Comparison

     Delete one comparison with its calls, tags and labels (409 while it runs); logged.

    Args:
        comparison_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonsDeleted | Problem]
    """

    kwargs = _get_kwargs(
        comparison_id=comparison_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
) -> ComparisonsDeleted | Problem | None:
    """Delete Comparison

     Delete one comparison with its calls, tags and labels (409 while it runs); logged.

    Args:
        comparison_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonsDeleted | Problem
    """

    return sync_detailed(
        comparison_id=comparison_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ComparisonsDeleted | Problem]:
    """Delete Comparison

     Delete one comparison with its calls, tags and labels (409 while it runs); logged.

    Args:
        comparison_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ComparisonsDeleted | Problem]
    """

    kwargs = _get_kwargs(
        comparison_id=comparison_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
) -> ComparisonsDeleted | Problem | None:
    """Delete Comparison

     Delete one comparison with its calls, tags and labels (409 while it runs); logged.

    Args:
        comparison_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ComparisonsDeleted | Problem
    """

    return (
        await asyncio_detailed(
            comparison_id=comparison_id,
            client=client,
        )
    ).parsed
