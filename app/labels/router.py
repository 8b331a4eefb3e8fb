"""`POST /v1/comparisons/{id}/labels` and `GET /v1/labeling-queue` (scope `label`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from app.deps import LabelKey, SessionDep
from app.labels import service
from app.labels.schemas import LabelIn, LabelingQueue, LabelRead

router = APIRouter(tags=["labels"])


@router.post(
    "/v1/comparisons/{comparison_id}/labels",
    operation_id="create_label",
    status_code=201,
    responses={
        200: {"model": LabelRead, "description": "the labeler's earlier label replaced"},
        403: {
            "description": "a key without `admin` named a labeler other than itself",
            "content": {"application/problem+json": {}},
        },
        409: {
            "description": "a placebo, failed or drift-canary comparison takes no label",
            "content": {"application/problem+json": {}},
        },
    },
)
async def create_label(
    # Any string, as `GET /v1/comparisons/{id}` takes it: an unknown id is 404 on both.
    comparison_id: Annotated[str, Path(description="the comparison's id")],
    body: LabelIn,
    principal: LabelKey,
    session: SessionDep,
    response: Response,
) -> LabelRead:
    """Attach a human's verdict to a stored comparison; the gold label is its labelers' majority."""
    label, created = await service.label_from_api(session, principal, comparison_id, body)
    if not created:
        response.status_code = 200
    return label


@router.get("/v1/labeling-queue", operation_id="get_labeling_queue")
async def get_labeling_queue(
    principal: LabelKey,
    session: SessionDep,
    judge: Annotated[str | None, Query(max_length=100)] = None,
    n: Annotated[int, Query(ge=1, le=200)] = 20,
    seed: Annotated[int | None, Query(ge=0, le=service.MAX_SEED)] = None,
) -> LabelingQueue:
    """A uniform random sample of unlabelled complete comparisons (of `judge`), so that the
    calibration set is a random sample; the same `seed` draws the same sample."""
    return await service.labeling_queue(session, judge, n, seed, principal.key_id)
