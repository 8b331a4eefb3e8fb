from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.experiment_create import ExperimentCreate
from ...models.experiment_read import ExperimentRead
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: ExperimentCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/experiments",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ExperimentRead | Problem | None:
    if response.status_code == 201:
        response_201 = ExperimentRead.from_dict(response.json())

        return response_201

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
) -> Response[Any | ExperimentRead | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ExperimentCreate,
) -> Response[Any | ExperimentRead | Problem]:
    """Create Experiment

     Start an experiment: with `items`, the service judges them until decided; without,
    comparisons join it by `POST /v1/compare` with `experiment`.

    Args:
        body (ExperimentCreate): Is the candidate better than the baseline? Judged until the
            answer is known.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ExperimentRead | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: ExperimentCreate,
) -> Any | ExperimentRead | Problem | None:
    """Create Experiment

     Start an experiment: with `items`, the service judges them until decided; without,
    comparisons join it by `POST /v1/compare` with `experiment`.

    Args:
        body (ExperimentCreate): Is the candidate better than the baseline? Judged until the
            answer is known.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ExperimentRead | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ExperimentCreate,
) -> Response[Any | ExperimentRead | Problem]:
    """Create Experiment

     Start an experiment: with `items`, the service judges them until decided; without,
    comparisons join it by `POST /v1/compare` with `experiment`.

    Args:
        body (ExperimentCreate): Is the candidate better than the baseline? Judged until the
            answer is known.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ExperimentRead | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: ExperimentCreate,
) -> Any | ExperimentRead | Problem | None:
    """Create Experiment

     Start an experiment: with `items`, the service judges them until decided; without,
    comparisons join it by `POST /v1/compare` with `experiment`.

    Args:
        body (ExperimentCreate): Is the candidate better than the baseline? Judged until the
            answer is known.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ExperimentRead | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
