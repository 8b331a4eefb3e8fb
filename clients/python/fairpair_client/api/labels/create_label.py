from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.label_in import LabelIn
from ...models.label_read import LabelRead
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    comparison_id: str,
    *,
    body: LabelIn,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/comparisons/{comparison_id}/labels".format(
            comparison_id=quote(str(comparison_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | LabelRead | Problem | None:
    if response.status_code == 200:
        response_200 = LabelRead.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = LabelRead.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = cast(Any, None)
        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = cast(Any, None)
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
) -> Response[Any | LabelRead | Problem]:
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
    body: LabelIn,
) -> Response[Any | LabelRead | Problem]:
    """Create Label

     Attach a human's verdict to a stored comparison; the gold label is its labelers' majority.

    Args:
        comparison_id (str): the comparison's id
        body (LabelIn): A human's verdict on a stored comparison.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | LabelRead | Problem]
    """

    kwargs = _get_kwargs(
        comparison_id=comparison_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
    body: LabelIn,
) -> Any | LabelRead | Problem | None:
    """Create Label

     Attach a human's verdict to a stored comparison; the gold label is its labelers' majority.

    Args:
        comparison_id (str): the comparison's id
        body (LabelIn): A human's verdict on a stored comparison.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | LabelRead | Problem
    """

    return sync_detailed(
        comparison_id=comparison_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
    body: LabelIn,
) -> Response[Any | LabelRead | Problem]:
    """Create Label

     Attach a human's verdict to a stored comparison; the gold label is its labelers' majority.

    Args:
        comparison_id (str): the comparison's id
        body (LabelIn): A human's verdict on a stored comparison.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | LabelRead | Problem]
    """

    kwargs = _get_kwargs(
        comparison_id=comparison_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    comparison_id: str,
    *,
    client: AuthenticatedClient,
    body: LabelIn,
) -> Any | LabelRead | Problem | None:
    """Create Label

     Attach a human's verdict to a stored comparison; the gold label is its labelers' majority.

    Args:
        comparison_id (str): the comparison's id
        body (LabelIn): A human's verdict on a stored comparison.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | LabelRead | Problem
    """

    return (
        await asyncio_detailed(
            comparison_id=comparison_id,
            client=client,
            body=body,
        )
    ).parsed
