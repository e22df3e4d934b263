"""The one wiring point: configuration, and gRPC servers assembled from the services.

Entry points (`verrater serve ...`, tests, benchmarks) build servers here, so the real store, the
token issuer, the interceptor, health checking and reflection are wired the same way everywhere.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from services.ai.dispatch import BotScheduler, CeleryLauncher, InProcessLauncher
from services.ai.server import AiServicer
from services.ai.turns import GameClient, seal_replica
from services.api.verrater.v1 import (
    ai_pb2,
    ai_pb2_grpc,
    chat_pb2,
    game_pb2,
    game_pb2_grpc,
    lobby_pb2,
    lobby_pb2_grpc,
    stats_pb2,
    stats_pb2_grpc,
)
from services.chat import (
    ChatApplication,
    ChatServicer,
    ChatStore,
    GameEndings,
    InMemoryChat,
    RedisChat,
    TableFacts,
)
from services.config import (
    ALL_SERVICES,
    Config,
    ConfigError,
    Listener,
    ensure_free,
    listening,
    secured,
)
from services.errors import Reason, ServiceError
from services.eventstore import EventStore, InMemoryEventStore, open_store
from services.game.server import GameServicer
from services.game.service import GameApplication
from services.game.storewatch import StoreWatch
from services.game.timers import InMemoryTurnTimers, RedisTurnTimers, TimerSweeper, TurnTimers
from services.handlers import Followers, message_bus
from services.lobby.gateway import GrpcGameGateway, validate_setup
from services.lobby.model import TableStatus, game_id_of, table_of_game
from services.lobby.progress import InMemoryProgressBoard, ProgressBoard
from services.lobby.redis_migrate import migrate_when_reachable
from services.lobby.redis_progress import RedisProgressBoard
from services.lobby.redis_store import RedisLobbyStore
from services.lobby.server import LobbyServicer
from services.lobby.service import LobbyApplication, LobbyLimits
from services.lobby.store import InMemoryLobbyStore, LobbyStore
from services.notifications import (
    GameNotifier,
    InMemoryNotifications,
    LobbyNotifier,
    Notifications,
    NotificationStreams,
    Publisher,
    RedisNotifications,
)
from services.observability import start_metrics
from services.rpc import (
    RateLimit,
    RateLimiter,
    ServiceInterceptor,
    StreamQuota,
    TrustedProxies,
    VerifiedTokens,
)
from services.runtime import tune_garbage_collector
from services.stats import (
    FinishedGameFeed,
    InMemoryStats,
    RedisStats,
    StatsProjection,
    StatsProjector,
)
from services.stats.server import StatsServicer
from services.web import Door, Origins, Upstreams

if TYPE_CHECKING:  # Celery is imported where bots run on it, not by every process
    from services.ai.worker import WorkerSettings

log = logging.getLogger("verrater")

GAME_SERVICE = game_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name
AI_SERVICE = ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name
STATS_SERVICE = stats_pb2.DESCRIPTOR.services_by_name["StatsService"].full_name
CHAT_SERVICE = chat_pb2.DESCRIPTOR.services_by_name["ChatService"].full_name
#: Lobby calls that change something: they count against a player's lobby rate.
LOBBY_ACTIONS = (
    "RefreshToken",
    "RotateCredential",
    "ListMyGames",
    "CreateTable",
    "JoinTable",
    "LeaveTable",
    "AddBot",
    "QuickMatch",
    "StartGame",
)
PUBLIC_METHODS = frozenset(
    {
        f"/{GAME_SERVICE}/GetRuleset",
        f"/{LOBBY_SERVICE}/RegisterGuest",
        f"/{LOBBY_SERVICE}/SignIn",
    }
)
#: A health service name that is SERVING for as long as the process runs (until shutdown): for
#: liveness probes, which must not restart replicas while their store is away ("" and the
#: services' own names go NOT_SERVING then, for readiness).
LIVENESS = "liveness"
#: gRPC's default is 4 MiB; no legitimate request of ours comes near 1 MiB.
MAX_MESSAGE_BYTES = 1024 * 1024
#: New calls gRPC core may hold until the event loop takes them (see start_backend).
MAX_PENDING_CALLS = 10_000


def rate_limits(config: Config) -> dict[str, RateLimit]:
    """Which methods count against which per-player limit."""
    limits: dict[str, RateLimit] = {}
    if config.command_rate > 0:
        command = RateLimit("command", config.command_rate, 2 * config.command_rate)
        limits[f"/{GAME_SERVICE}/SubmitCommand"] = command
        limits[f"/{AI_SERVICE}/SuggestMove"] = command
    if config.lobby_rate > 0:
        lobby = RateLimit(
            "lobby", config.lobby_rate, 4 * config.lobby_rate, player_tokens_only=True
        )
        for name in LOBBY_ACTIONS:
            limits[f"/{LOBBY_SERVICE}/{name}"] = lobby
    return limits


def lobby_limits(config: Config) -> LobbyLimits:
    """The lobby's limits per network peer, per player id and overall."""
    return LobbyLimits(
        guests_per_peer_minute=config.guest_rate,
        guests_per_second=config.guest_global_rate,
        sign_ins_per_player_minute=config.signin_rate,
        sign_ins_per_peer_minute=config.signin_peer_rate,
        tables_per_peer=config.peer_tables,
    )


@dataclass(slots=True)
class Backend:
    """A running gRPC server hosting some of the services, and everything it owns."""

    server: aio.Server
    port: int
    health: health_aio.HealthServicer
    game: GameApplication | None = None
    lobby: LobbyApplication | None = None
    #: What the game and the lobby of this process tell players, and who publishes it.
    notifications: Notifications | None = None
    publisher: Publisher | None = None
    #: Every table's chat, shared by the game (which closes it) and the lobby (which serves it).
    chat: ChatStore | None = None
    #: Where each table's game stands: written by the game's handlers, read by ListMyGames.
    progress: ProgressBoard | None = None
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    async def stop(self, grace: float | None = 5.0) -> None:
        """Stop taking calls, let in-flight ones finish within `grace`, then close stores."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        for close in reversed(self.closers):
            # A part that cannot close (its backend gone) must not keep the process alive.
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await close()
            except TimeoutError:
                log.warning("gave up closing %s after %ss", close, CLOSE_TIMEOUT_S)


#: `verrater serve web`: the browser's door alone, in front of the services elsewhere.
WEB_ONLY = frozenset({"web"})
#: How long shutdown waits for each store or client to close.
CLOSE_TIMEOUT_S = 5.0
BOT_MODES = ("auto", "inprocess", "celery", "off")


def _bot_scheduler(
    config: Config, services: frozenset[str], port: int
) -> tuple[BotScheduler | None, Callable[[], Awaitable[None]] | None]:
    """Where this process sends bot turns (see Config.bots)."""
    if config.bots not in BOT_MODES:
        raise ConfigError(
            f"VERRATER_BOTS must be one of {', '.join(BOT_MODES)}, not {config.bots!r}"
        )
    mode = config.bots
    replica = ("", "")  # the address bot turns name, and its seal: none
    if mode == "auto":
        mode = "inprocess" if "ai" in services else "celery"
    if mode == "off":
        return None, None
    if mode == "celery":
        if not config.broker:
            raise ConfigError(
                "bots on Celery workers need VERRATER_BROKER_URL, or a REDIS_URL that is not a "
                "cluster (Celery cannot use a Redis Cluster as its broker)"
            )
        from services.ai.worker import make_app

        app = make_app(worker_settings(config))
        celery = CeleryLauncher(app, config.bot_queue, config.bot_publish_gap_ms / 1000)
        advertised = config.advertised(port)
        if advertised:
            # The workers submit bot moves to this replica, which holds the game in memory.
            replica = (advertised, seal_replica(config.token_secret, advertised))
        return BotScheduler(celery, replica, on_moved=celery.bot_moved), celery.close
    launcher = InProcessLauncher(GameClient(f"127.0.0.1:{port}", config.issuer))
    return BotScheduler(launcher, replica), launcher.close


def worker_settings(config: Config) -> WorkerSettings:
    """What the Celery workers, and the game service that sends them bot turns, need."""
    from services.ai.worker import WorkerSettings

    if config.broker is None:
        raise ConfigError(
            "REDIS_URL names a Redis Cluster, which cannot be Celery's broker: set "
            "VERRATER_BROKER_URL (RabbitMQ, or a standalone Redis)"
            if config.redis_cluster
            else "bot turns travel through Celery's broker: set VERRATER_BROKER_URL (RabbitMQ, "
            "or a Redis), or REDIS_URL to use the event store's Redis"
        )
    return WorkerSettings(
        broker_url=config.broker,
        result_url=config.standalone_redis_url,
        game_address=config.game_address or "127.0.0.1:50051",
        token_secret=config.token_secret,
        visibility_timeout_s=config.task_visibility_seconds,
        min_think_ms=config.bot_min_think_ms,
        queue=config.bot_queue,
    )


def _watch_store(store: EventStore, backend: Backend) -> StoreWatch:
    """NOT_SERVING while the event store cannot be used; a restarted store is compared with
    the cache (services/game/storewatch.py). Started once the server reports SERVING."""
    assert backend.game is not None

    async def serving(usable: bool) -> None:
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if usable
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        for name in ("", GAME_SERVICE, STATS_SERVICE):
            await backend.health.set(name, status)

    return StoreWatch(store, backend.game, serving)


def _turn_timers(
    config: Config, store: EventStore, closers: list[Callable[[], Awaitable[None]]]
) -> TurnTimers:
    """Where the game service keeps its turn timers: beside its events (services/game/timers/)."""
    if config.redis_url is None or isinstance(store, InMemoryEventStore):
        return InMemoryTurnTimers()
    timers = RedisTurnTimers.from_url(config.redis_url)
    closers.append(timers.close)
    return timers


def _stats_projection(
    config: Config, store: EventStore, closers: list[Callable[[], Awaitable[None]]]
) -> StatsProjection:
    """The finished-games projection beside the game service: in memory in embedded mode; on
    Redis with a projector task in this process otherwise (game replicas share its inbox)."""
    if config.redis_url is None or isinstance(store, InMemoryEventStore):
        return InMemoryStats(store)
    stats = RedisStats.from_url(config.redis_url)
    closers.append(stats.close)
    projector = StatsProjector(stats, store)
    projector.start()
    closers.append(projector.stop)
    return stats


class LobbyTables:
    """The lobby's tables as chat sees them (services/chat `Tables`)."""

    def __init__(self, lobby: LobbyApplication) -> None:
        self._lobby = lobby

    async def facts(self, table_id: str) -> TableFacts:
        table = await self._lobby.table(table_id)
        fixed = table.status in (TableStatus.STARTING, TableStatus.STARTED)
        return TableFacts(
            table.table_id,
            table.host,
            seated={s.player_id: s.name for s in table.seats if s.player_id and not s.bot_level},
            bots=frozenset(s.player_id for s in table.seats if s.bot_level),
            game_id=table.game_id if fixed else "",
            seats_fixed=fixed,
            started=table.status is TableStatus.STARTED,
            closed=table.status is TableStatus.CLOSED,
        )

    async def display_name(self, player_id: str) -> str:
        player = await self._lobby.store.player(player_id)
        if player is None:
            raise ServiceError(Reason.PLAYER_NOT_FOUND, f"no player with id {player_id!r}")
        return player.name

    def table_of_game(self, game_id: str) -> str:
        return table_of_game(game_id)


def _notifications(config: Config) -> Notifications:
    """One per process, shared by its game and lobby services: in memory in embedded mode, on
    Redis otherwise (every replica reads and writes the same players' notifications)."""
    if config.redis_url is None:
        return InMemoryNotifications(outbound_maxlen=config.notify_outbound_maxlen)
    return RedisNotifications.from_url(
        config.redis_url, outbound_maxlen=config.notify_outbound_maxlen
    )


async def start_backend(
    config: Config,
    services: frozenset[str] = ALL_SERVICES,
    *,
    event_store: EventStore | None = None,
    lobby_store: LobbyStore | None = None,
    notifications: Notifications | None = None,
    clock: Callable[[], float] = time.time,
    door_socket: str | None = None,
) -> Backend:
    """Start `services` in one gRPC server on `config.bind` (port 0: any free port).

    Stores default to Redis when `config.redis_url` is set, else to memory. A lobby without a
    game service in the same process reaches the game service at `config.game_address`.
    `clock` is the wall clock tokens expire by (tests inject their own). `door_socket`: a Unix
    socket path in a private folder where the server listens for the embedded web door, whose
    `x-forwarded-for` (the browser's address) it then believes.
    """
    if "game" not in services and not config.game_address:
        raise ConfigError(
            "the game service does not run in this process: set VERRATER_GAME_ADDR to where it "
            "listens (host:port, or dns:///name:port for every replica)"
        )
    ensure_free(config.bind, Listener.GRPC)
    issuer = config.issuer
    limiter = RateLimiter(rate_limits(config))
    # Whose x-forwarded-for names the client, for the limits per network address: the embedded
    # web door's, on its private socket, and the configured proxies.
    proxies = replace(
        TrustedProxies.parse(config.trusted_proxies), unix_sockets=door_socket is not None
    )
    tokens = VerifiedTokens(issuer, clock=clock)
    server = aio.server(
        interceptors=[
            ServiceInterceptor(
                issuer,
                PUBLIC_METHODS,
                limiter,
                streams=StreamQuota(config.streams_per_player, config.streams_per_peer),
                proxies=proxies,
                clock=clock,
                tokens=tokens,
            )
        ],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
            # New calls wait in gRPC core until the event loop takes them. Past 1,000 waiting
            # (core's default) core cancels them: 400 games starting at once (1,600 Play
            # streams) lost some that way. A burst of reconnecting clients queues instead.
            ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", 2 * MAX_PENDING_CALLS),
        ],
    )
    health_servicer = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = server.add_insecure_port(config.bind)
    if port == 0:
        raise OSError(f"cannot bind to {config.bind}")
    if door_socket is not None and server.add_insecure_port(f"unix:{door_socket}") == 0:
        raise OSError(f"cannot listen on {door_socket}")
    backend = Backend(server, port, health_servicer)
    names: list[str] = []
    own_address = f"127.0.0.1:{port}"
    store_watch: StoreWatch | None = None
    if services & {"game", "lobby"}:
        backend.notifications = notifications or _notifications(config)
        backend.closers.append(backend.notifications.close)
        backend.publisher = Publisher(backend.notifications)
        backend.closers.append(backend.publisher.close)
        # Chat's keys share the slot of their table's game (its event log's hash tag).
        backend.chat = (
            RedisChat(config.redis_url, tag_of=game_id_of) if config.redis_url else InMemoryChat()
        )
        backend.closers.append(backend.chat.close)
        backend.progress = (
            RedisProgressBoard.from_url(config.redis_url)
            if config.redis_url
            else InMemoryProgressBoard()
        )
        backend.closers.append(backend.progress.close)
    if "game" in services:
        assert backend.publisher is not None
        store = event_store or open_store(
            config.redis_url, wait_replicas=config.wait_replicas, wait_ms=config.redis_wait_ms
        )
        backend.closers.append(store.close)
        scheduler, close_scheduler = _bot_scheduler(config, services, port)
        if close_scheduler is not None:
            backend.closers.append(close_scheduler)
        stats = _stats_projection(config, store, backend.closers)
        feed = FinishedGameFeed(stats.record_finished)
        backend.closers.append(feed.close)
        # What follows a change in a game (services/handlers.py): bots, stats, notifications.
        players = GameNotifier(backend.publisher, table_of=table_of_game)
        assert backend.chat is not None
        endings = GameEndings(backend.chat.game_ended, table_of_game, clock=clock)
        backend.closers.append(endings.close)
        bus = message_bus(Followers(players, feed, scheduler, endings, backend.progress))
        timers = _turn_timers(config, store, backend.closers)
        recheck_ms = int(config.bot_resend_seconds * 1000) if scheduler is not None else 0
        backend.game = GameApplication(
            store, publish=bus.handle, timers=timers, clock=clock, bot_recheck_ms=recheck_ms
        )
        backend.closers.append(backend.game.close)
        if scheduler is not None:
            sweeper = TimerSweeper(
                timers, backend.game.resting, bus.handle, recheck_ms=recheck_ms, clock=clock
            )
            sweeper.start()
            backend.closers.append(sweeper.stop)
        store_watch = _watch_store(store, backend)
        backend.closers.append(store_watch.stop)
        stats_pb2_grpc.add_StatsServiceServicer_to_server(StatsServicer(stats), server)
        names.append(STATS_SERVICE)
        game_pb2_grpc.add_GameServiceServicer_to_server(
            GameServicer(backend.game, tokens, limiter, stream_backlog=config.stream_backlog),
            server,
        )
        names.append(GAME_SERVICE)
    if "lobby" in services:
        assert backend.notifications is not None and backend.publisher is not None
        if lobby_store is None:
            lobby_store = (
                RedisLobbyStore.from_url(config.redis_url)
                if config.redis_url
                else InMemoryLobbyStore()
            )
        if isinstance(lobby_store, RedisLobbyStore):
            await migrate_when_reachable(lobby_store.redis)  # before serving: see its module
        backend.closers.append(lobby_store.close)
        gateway = GrpcGameGateway(config.game_address or own_address, issuer)
        backend.closers.append(gateway.close)
        backend.lobby = LobbyApplication(
            lobby_store,
            issuer,
            gateway,
            validate_setup=validate_setup,
            limits=lobby_limits(config),
            quick_match_turn_seconds=config.quick_match_turn_seconds,
            notifier=LobbyNotifier(backend.publisher),
            progress=backend.progress,
        )
        backend.closers.append(backend.lobby.close)
        streams = NotificationStreams(
            backend.notifications,
            max_streams=config.notify_streams,
            max_pending=config.notify_pending,
        )
        servicer = LobbyServicer(backend.lobby, proxies, streams)
        lobby_pb2_grpc.add_LobbyServiceServicer_to_server(servicer, server)
        names.append(LOBBY_SERVICE)
        assert backend.chat is not None
        chat = ChatApplication(backend.chat, LobbyTables(backend.lobby), clock=clock)
        chat.max_watchers = config.chat_watchers_per_table
        ChatServicer(chat).add_to(server)
        names.append(CHAT_SERVICE)
    if "ai" in services:
        ai = AiServicer(
            config.game_address if "game" not in services and config.game_address else own_address
        )
        backend.closers.append(ai.close)
        ai_pb2_grpc.add_AiServiceServicer_to_server(ai, server)
        names.append(AI_SERVICE)
    reflection.enable_server_reflection(
        (*names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    await server.start()
    if backend.lobby is not None:
        backend.lobby.start_background()
    for name in ("", LIVENESS, *names):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if store_watch is not None:
        store_watch.start()
    return backend


async def start_web(
    config: Config, upstreams: Upstreams, listener: Listener = Listener.DOOR_ALONE
) -> Door:
    """The browser's door on `config.web_bind`, forwarding to `upstreams`."""
    door = Door(upstreams, origins=Origins.parse(config.web_origins))
    with listening(config.web_bind, listener):
        await door.start(config.web_bind, shutdown_timeout=config.grace_seconds)
    return door


def web_upstreams(config: Config) -> Upstreams:
    """Where `verrater serve web` sends each service's calls (stats live with the game)."""
    addresses = {
        "VERRATER_LOBBY_ADDR": config.lobby_address,
        "VERRATER_GAME_ADDR": config.game_address,
        "VERRATER_AI_ADDR": config.ai_address,
    }
    missing = [name for name, address in addresses.items() if not address]
    if missing:
        raise SystemExit(f"`verrater serve web` needs {', '.join(missing)}")
    game = config.game_address or ""
    return Upstreams(
        {
            LOBBY_SERVICE: config.lobby_address or "",
            CHAT_SERVICE: config.lobby_address or "",
            GAME_SERVICE: game,
            STATS_SERVICE: game,
            AI_SERVICE: config.ai_address or "",
        }
    )


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


async def serve(config: Config, services: frozenset[str]) -> None:
    """`verrater serve [game|lobby|ai|web]`: run until SIGTERM or SIGINT, then shut down
    cleanly. Embedded mode (all services) serves the browser's door too, unless
    `config.web_bind` is empty; `web` alone is the door in front of the others."""
    with listening(f"0.0.0.0:{config.metrics_port}", Listener.METRICS):
        start_metrics(config.metrics_port)
    if services == WEB_ONLY:
        alone = await start_web(config, web_upstreams(config))
        log.info("the web door listening on port %d", alone.port)
        await _until_stopped()
        await alone.stop()
        return
    config = secured(config, services)
    with tempfile.TemporaryDirectory(prefix="verrater-") as private:
        with_door = services == ALL_SERVICES and bool(config.web_bind)
        socket = os.path.join(private, "door.sock") if with_door else None
        if socket:
            ensure_free(config.web_bind, Listener.DOOR)  # before the backend starts
        backend = await start_backend(config, services, door_socket=socket)
        door = (
            await start_web(config, Upstreams.one(f"unix:{socket}"), Listener.DOOR)
            if socket
            else None
        )
        tune_garbage_collector(holds_games="game" in services)
        stateful = bool(services & {"game", "lobby"})
        where = (config.redis_url or "the in-memory store") if stateful else "no state"
        log.info(
            "%s listening on port %d, state in %s",
            ", ".join(sorted(services | ({"stats"} if "game" in services else set()))),
            backend.port,
            where,
        )
        if door is not None:
            log.info("the page and gRPC-Web on http://%s/", config.web_bind)
        await _until_stopped()
        log.info("shutting down: finishing in-flight calls")
        if door is not None:
            await door.stop()
        await backend.stop(config.grace_seconds)
