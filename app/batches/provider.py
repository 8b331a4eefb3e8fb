"""Provider-mode batches: a judge with a batch API gets a batch's calls through its provider's
batch jobs (OpenAI's Batch API, Anthropic's Message Batches) at about half the price.

How an item runs (docs/BATCHES.md):
1. A delivery runs the item through the kernel as a live one, except that a batch judge's calls
   are deferred: `ItemDeferral` keeps what the judge would send, the kernel parks the job
   `waiting`, and `park` stores those requests by `custom_id` with the item `waiting` (no lease:
   no worker holds it, the reconciler and the sweeper skip it). (app/batches/deferral.py)
2. Every `provider_tick_s`, in each worker (or the API without Redis), `ProviderRounds.tick`
   (app/batches/rounds.py):
   - submits: a batch none of whose items is queued or running has each judge's pending
     requests put into provider jobs (split at the provider's limits), claimed by one process
     (job_submissions.py; a submission whose outcome is unknown is looked up, job_lookups.py);
   - polls each job that is due, one process each, backing off; an ended job has its results
     mapped onto its requests by `custom_id` and its files deleted at the provider; a job failed
     whole sends its requests once more, and fails them the second time (job_polls.py);
   - wakes: a waiting item whose requests are all resolved is queued again.
3. That delivery asks the same requests (the draws are seeded per item), finds their answers by
   their `AnswerKey` (app/batches/provider_keys.py) and stores them as calls, parsed as live
   answers are; the protocol goes on (an adaptive pair's escalation is deferred in turn: the
   next wave) or the item finishes.

This module is the face the runner, the batch service and the workers import; the request rows'
states and the cancel are app/batches/provider_requests.py, the job rows' clock
app/batches/provider_jobs.py.
"""

from __future__ import annotations

from app.batches.deferral import ItemDeferral, PendingCall, deferral_for, park
from app.batches.provider_requests import cancel_batch, forget_requests, has_requests
from app.batches.rounds import run_provider_rounds

__all__ = [
    "ItemDeferral",
    "PendingCall",
    "cancel_batch",
    "deferral_for",
    "forget_requests",
    "has_requests",
    "park",
    "run_provider_rounds",
]
