from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.labeling_queue import LabelingQueue
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    judge: None | str | Unset = UNSET,
    n: int | Unset = 20,
    seed: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_judge: None | str | Unset
    if isinstance(judge, Unset):
        json_judge = UNSET
    else:
        json_judge = judge
    params["judge"] = json_judge

    params["n"] = n

    json_seed: int | None | Unset
    if isinstance(seed, Unset):
        json_seed = UNSET
    else:
        json_seed = seed
    params["seed"] = json_seed

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/labeling-queue",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> LabelingQueue | Problem | None:
    if response.status_code == 200:
        response_200 = LabelingQueue.from_dict(response.json())

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
) -> Response[LabelingQueue | Problem]:
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
    n: int | Unset = 20,
    seed: int | None | Unset = UNSET,
) -> Response[LabelingQueue | Problem]:
    """Get Labeling Queue

     A uniform random sample of unlabelled complete comparisons (of `judge`), so that the
    calibration set is a random sample; the same `seed` draws the same sample.

    Args:
        judge (None | str | Unset):
        n (int | Unset):  Default: 20.
        seed (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LabelingQueue | Problem]
    """

    kwargs = _get_kwargs(
        judge=judge,
        n=n,
        seed=seed,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    n: int | Unset = 20,
    seed: int | None | Unset = UNSET,
) -> LabelingQueue | Problem | None:
    """Get Labeling Queue

     A uniform random sample of unlabelled complete comparisons (of `judge`), so that the
    calibration set is a random sample; the same `seed` draws the same sample.

    Args:
        judge (None | str | Unset):
        n (int | Unset):  Default: 20.
        seed (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LabelingQueue | Problem
    """

    return sync_detailed(
        client=client,
        judge=judge,
        n=n,
        seed=seed,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    n: int | Unset = 20,
    seed: int | None | Unset = UNSET,
) -> Response[LabelingQueue | Problem]:
    """Get Labeling Queue

     A uniform random sample of unlabelled complete comparisons (of `judge`), so that the
    calibration set is a random sample; the same `seed` draws the same sample.

    Args:
        judge (None | str | Unset):
        n (int | Unset):  Default: 20.
        seed (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[LabelingQueue | Problem]
    """

    kwargs = _get_kwargs(
        judge=judge,
        n=n,
        seed=seed,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    judge: None | str | Unset = UNSET,
    n: int | Unset = 20,
    seed: int | None | Unset = UNSET,
) -> LabelingQueue | Problem | None:
    """Get Labeling Queue

     A uniform random sample of unlabelled complete comparisons (of `judge`), so that the
    calibration set is a random sample; the same `seed` draws the same sample.

    Args:
        judge (None | str | Unset):
        n (int | Unset):  Default: 20.
        seed (int | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        LabelingQueue | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            judge=judge,
            n=n,
            seed=seed,
        )
    ).parsed
