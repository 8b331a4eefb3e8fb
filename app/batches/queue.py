"""The batch queue: taskiq over Redis Streams for workers, or taskiq's in-memory broker in the API.

Messages carry item ids only; the items, their state and their leases live in the database. A lost
message therefore loses nothing: the reconciler sends the item again (app/batches/reconciler.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from contextlib import aclosing, asynccontextmanager
from typing import Annotated, Any, Protocol

import structlog
from redis.asyncio import Redis
from redis.exceptions import RedisError, ResponseError
from taskiq import AckableMessage, InMemoryBroker
from taskiq.abc.broker import AsyncBroker
from taskiq.kicker import AsyncKicker
from taskiq.message import TaskiqMessage
from taskiq_redis import RedisStreamBroker

from app.background import running
from app.batches.ratelimit import RateLimitNotes
from app.config import Settings
from app.deps import from_state
from app.logs import error_fields

log = structlog.get_logger()
TASK_NAME = "fairpair.batches.run_item"
STREAM = "fairpair:batch-items"
GROUP = "fairpair-workers"
KICK_CHUNK = 32
PIPELINE_CHUNK = 500
RETRY_MAX_S = 5.0
REDIS_TIMEOUT_S = 5.0
# A live `fairpair worker` keeps a key of its own under this prefix, renewed every HEARTBEAT_S and
# gone HEARTBEAT_TTL_S after the last renewal, so a batch can say whether anything will run it.
WORKER_KEYS = "fairpair:workers:"
HEARTBEAT_S = 5.0
HEARTBEAT_TTL_S = 15
# How long a batch's answer waits to count the workers before it says it does not know.
WORKER_COUNT_S = 1.0

RunItem = Callable[[str], Awaitable[None]]


class ItemQueue(Protocol):
    """Where item ids go to be run."""

    # Set when the queue found its consumer group missing (Redis lost its data) and made a new one.
    stream_reset: asyncio.Event
    # The Redis behind the queue, for readiness probes; None in process.
    redis: Redis | None
    # Until when each batch's items wait on a rate limit (its runners write, its status reads).
    rate_limits: RateLimitNotes

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        """Send item ids; a failure is logged, never raised (the reconciler sends them later)."""
        ...

    async def backlog(self) -> int | None:
        """Messages sent but not yet handed to a runner; None when it cannot tell."""
        ...

    async def live_workers(self) -> int | None:
        """Processes that run items now; None when it cannot tell."""
        ...


# The process's queue, as routes receive it (made in the lifespan).
BatchQueueDep = Annotated[ItemQueue, from_state("batch_queue")]


def register(broker: AsyncBroker, run_item: RunItem) -> None:
    """Make `run_item` the task that item messages run."""

    async def run_batch_item(item_id: str) -> None:
        try:
            await run_item(item_id)
        except Exception as exc:
            # A bug, logged as the API logs one: by type and place, never by its message (which
            # may quote texts), where taskiq would log the whole exception. The item's lease
            # lapses and the reconciler sends it again, counting the attempt, as before.
            log.error("internal_error", item_id=item_id, **error_fields(exc))

    broker.register_task(run_batch_item, task_name=TASK_NAME)


async def kick_all(broker: AsyncBroker, item_ids: Sequence[str]) -> None:
    """One message per item id, a few in flight at once."""
    kicker: AsyncKicker[Any, Any] = AsyncKicker(TASK_NAME, broker, labels={})
    for start in range(0, len(item_ids), KICK_CHUNK):
        chunk = item_ids[start : start + KICK_CHUNK]
        await asyncio.gather(*(kicker.kiq(item_id) for item_id in chunk))


class StreamBroker(RedisStreamBroker):
    """taskiq-redis's stream broker, made to outlive a Redis that restarts without its data.

    - The consumer group reads from the stream's start, so messages added before it existed (by an
      API that kicked into a fresh stream after a restart) are delivered.
    - A lost group (NOGROUP) is created again; a lost connection is retried with backoff. The base
      broker would end its listen loop, and the worker with it.
    - A failed acknowledgement is logged: the message is delivered again and skipped, because the
      item's database state says it is done.
    """

    def __init__(self, url: str, settings: Settings, consumer_name: str | None = None) -> None:
        lease_ms = int(settings.batch_lease_s * 1000)
        super().__init__(
            url,
            queue_name=STREAM,
            consumer_group_name=GROUP,
            consumer_name=consumer_name,
            consumer_id="0",
            maxlen=settings.batch_stream_maxlen,
            approximate=True,
            xread_block=1000,
            # One message per read: a killed worker strands at most one delivery it never claimed.
            xread_count=1,
            # Deliveries idle this long are taken over by the next worker that reads.
            idle_timeout=2 * lease_ms,
            unacknowledged_batch_size=100,
            # The autoclaim lock of a killed worker expires instead of blocking the others.
            unacknowledged_lock_timeout=settings.batch_lease_s,
            max_connection_pool_size=settings.worker_concurrency + 8,
            # A Redis that stops answering fails a command after this long instead of holding a
            # submission, a readiness probe or the listen loop forever (the reads block for 1 s).
            socket_timeout=REDIS_TIMEOUT_S,
            socket_connect_timeout=REDIS_TIMEOUT_S,
        )
        self.stream_reset = asyncio.Event()

    async def ensure_group(self) -> None:
        """Create the consumer group unless it exists; a new group means the stream was lost."""
        async with Redis(connection_pool=self.connection_pool) as redis:
            try:
                await redis.xgroup_create(
                    self.queue_name, self.consumer_group_name, id="0", mkstream=True
                )
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
                return
        log.info("batch_queue_group_created", stream=self.queue_name)
        self.stream_reset.set()

    async def _declare_consumer_group(self) -> None:
        try:
            await self.ensure_group()
        except RedisError as exc:  # Redis down at start-up: listen() keeps trying
            log.warning("batch_queue_unreachable", error=str(exc))

    async def listen(self) -> AsyncGenerator[AckableMessage, None]:
        """The base broker's messages, across lost groups and connections."""
        delay = 0.1
        while True:
            try:
                async with aclosing(super().listen()) as messages:
                    async for message in messages:
                        delay = 0.1
                        yield message
            except RedisError as exc:
                delay = await self._recover(exc, delay)

    async def _recover(self, exc: RedisError, delay: float) -> float:
        if isinstance(exc, ResponseError) and "NOGROUP" in str(exc):
            log.warning("batch_queue_group_lost", stream=self.queue_name)
            try:
                await self.ensure_group()
                return delay
            except RedisError as again:
                exc = again
        log.warning("batch_queue_unreachable", error=str(exc), retry_in_s=delay)
        await asyncio.sleep(delay)
        return min(delay * 2, RETRY_MAX_S)

    def _ack_generator(self, id: str, queue_name: str) -> Callable[[], Awaitable[None]]:
        ack = super()._ack_generator(id=id, queue_name=queue_name)

        async def ack_or_log() -> None:
            try:
                await ack()
            except RedisError as exc:
                log.warning("batch_queue_ack_failed", message_id=str(id), error=str(exc))

        return ack_or_log


class RedisQueue:
    """Item ids on a Redis stream; workers consume them (`fairpair worker`)."""

    def __init__(self, url: str, settings: Settings, consumer_name: str | None = None) -> None:
        # No result backend: an item's outcome is in the database, so Redis keeps no results
        # (nothing to expire); the stream is capped by `maxlen` and the lock by its timeout.
        self.broker = StreamBroker(url, settings, consumer_name)
        self.stream_reset = self.broker.stream_reset
        self._client = Redis(connection_pool=self.broker.connection_pool)
        self.redis: Redis | None = self._client
        self.rate_limits = RateLimitNotes(self._client)

    async def startup(self) -> None:
        """Connect and make sure the consumer group exists."""
        await self.broker.startup()

    async def shutdown(self) -> None:
        """Close the connections, within REDIS_TIMEOUT_S: closing a connection to a Redis that
        was killed and restarted can wait on a socket that never answers."""
        try:
            async with asyncio.timeout(REDIS_TIMEOUT_S):
                await self.broker.shutdown()
        except TimeoutError:
            log.warning("batch_queue_shutdown_timed_out", bound_s=REDIS_TIMEOUT_S)

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        """One message per item, pipelined (a batch of 10,000 is sent in a few round trips);
        Redis down means the reconciler sends them later."""
        try:
            for start in range(0, len(item_ids), PIPELINE_CHUNK):
                async with self._client.pipeline(transaction=False) as pipe:
                    for item_id in item_ids[start : start + PIPELINE_CHUNK]:
                        pipe.xadd(
                            STREAM,
                            {b"data": self._message(item_id)},
                            maxlen=self.broker.maxlen,
                            approximate=True,
                        )
                    await pipe.execute()
        except RedisError as exc:
            log.warning("batch_queue_send_failed", items=len(item_ids), error=str(exc))

    def _message(self, item_id: str) -> bytes:
        """What `kiq(item_id)` would send, without a round trip per message."""
        message = TaskiqMessage(
            task_id=self.broker.id_generator(),
            task_name=TASK_NAME,
            labels={},
            labels_types={},
            args=[item_id],
            kwargs={},
        )
        return self.broker.formatter.dumps(message).message

    async def backlog(self) -> int | None:
        """The group's lag: entries in the stream not yet delivered to any worker."""
        try:
            groups = await self._client.xinfo_groups(STREAM)
        except ResponseError:  # no stream: nothing waits in it
            return 0
        for group in groups:
            if group["name"] in (GROUP, GROUP.encode()):
                lag = group.get("lag")
                return int(lag) if lag is not None else None
        return 0

    async def live_workers(self) -> int | None:
        """Workers whose heartbeat key is alive; None when Redis does not answer in time."""
        try:
            async with asyncio.timeout(WORKER_COUNT_S):
                keys = self._client.scan_iter(match=WORKER_KEYS + "*", count=500)
                return len([key async for key in keys])
        except (RedisError, TimeoutError):
            return None

    @asynccontextmanager
    async def heartbeat(self, name: str) -> AsyncIterator[None]:
        """Keep this worker's key alive while the block runs, and remove it after (a killed
        worker's key expires by itself)."""
        key = WORKER_KEYS + name

        async def beat() -> None:
            while True:
                with contextlib.suppress(RedisError, TimeoutError):
                    async with asyncio.timeout(REDIS_TIMEOUT_S):
                        await self._client.set(key, "1", ex=HEARTBEAT_TTL_S)
                await asyncio.sleep(HEARTBEAT_S)

        async with running(beat()):
            yield
        with contextlib.suppress(RedisError, TimeoutError):
            async with asyncio.timeout(REDIS_TIMEOUT_S):
                await self._client.delete(key)


class MemoryQueue:
    """The embedded default: taskiq's in-memory broker runs items in the API process."""

    def __init__(
        self,
        run_item: RunItem,
        waiting: Callable[[], int],
        rate_limits: RateLimitNotes | None = None,
    ) -> None:
        self.broker = InMemoryBroker(max_stored_results=1)
        # The notes the runner writes (`ItemRunner(rate_limits=...)`): the same object.
        self.rate_limits = rate_limits or RateLimitNotes(None)
        register(self.broker, run_item)
        self.stream_reset = asyncio.Event()
        self.redis: Redis | None = None
        self._waiting = waiting
        self.closing = False

    async def startup(self) -> None:
        """Start the broker."""
        await self.broker.startup()

    async def shutdown(self) -> None:
        """Stop taking items; unfinished ones are sent again at the next start."""
        self.closing = True
        await self.broker.shutdown()

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        """Start one task per item; they wait for a slot of the process's runner."""
        if not self.closing:
            await kick_all(self.broker, item_ids)

    async def backlog(self) -> int | None:
        """Items sent in this process and still waiting for a slot."""
        return self._waiting()

    async def live_workers(self) -> int | None:
        """This process runs the items: one, until it shuts down."""
        return 0 if self.closing else 1
