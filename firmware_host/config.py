"""The daemon's configuration: one TOML file, overridden by CRIB_* environment variables.

Priority (highest first): command-line options, environment (`CRIB_PORT`,
`CRIB_BOARD__PORT`, ...), the TOML file (`--config`, `CRIB_CONFIG`, or `config.toml`
in the state directory), defaults. `load_settings` raises ConfigError with one line
naming the key and the problem.
"""

from __future__ import annotations

import contextvars
import enum
import ipaddress
import os
import re
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from cribbage.rules import RULES, SkunkRule
from firmware_host.errors import ConfigError
from hardware import pins as pin_table

if TYPE_CHECKING:
    from hardware.shuffler.controller import Timing

# The variants and skunk rules are the engine's (cribbage.rules): named here, never listed.
SKUNK_RULES = tuple(rule.value for rule in SkunkRule)
# The targets a game on this table may have: the daemon's bound, not a rule (the engine takes
# any); the top is the largest target the board's link carries (hardware.board.render).
TARGET_MIN, TARGET_MAX = 31, 1000
# BCM numbers of the GPIO pins on the 40-pin header.
GPIO_PINS = range(0, 28)

_config_file: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "crib_config_file", default=None
)


class DeviceMode(enum.StrEnum):
    """How a device is provided: the real one, its simulator, none, or real only on a Pi."""

    AUTO = "auto"
    REAL = "real"
    SIMULATED = "simulated"
    ABSENT = "absent"


def _gpio_pin(value: int) -> int:
    if value not in GPIO_PINS:
        raise ValueError(f"{value} is not a GPIO number (BCM 0..27)")
    return value


GpioPin = Annotated[int, AfterValidator(_gpio_pin)]
"""A BCM GPIO number of the 40-pin header."""


def _check_pins(pins: dict[str, int]) -> dict[str, int]:
    for name, pin in pins.items():
        if isinstance(pin, bool) or not isinstance(pin, int) or pin not in GPIO_PINS:
            raise ValueError(f"pin {name}={pin} is not a GPIO number (BCM 0..27)")
    return pins


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BoardMode(enum.StrEnum):
    """The board's modes: a device's four, and "spi" for a strip on the Pi's own SPI0 MOSI."""

    AUTO = "auto"
    REAL = "real"
    SIMULATED = "simulated"
    ABSENT = "absent"
    SPI = "spi"


class BoardSettings(_Section):
    """The LED peg board: behind its microcontroller on a serial port, or on SPI ("spi")."""

    mode: BoardMode = BoardMode.AUTO
    port: str = "/dev/serial/by-id/usb-cribbage-table_peg-board-if00"
    # mode = "spi": the strip's data line on SPI0 MOSI (GPIO10) through a level shifter.
    spi_device: str = "/dev/spidev0.0"
    colour_order: Literal["GRB", "RGB", "GRBW"] = "GRB"  # WS2812B GRB; SK6812 RGBW GRBW
    power_budget_a: float = Field(2.0, gt=0, le=20)  # LED current the supply can spare
    tracks: int = Field(2, ge=1, le=3)
    holes: Literal[60, 120] = 120
    brightness: int = Field(128, ge=0, le=255)
    palette: Literal["classic", "colorblind"] = "classic"
    # Per track, the LED index of each hole (start hole, the holes, game hole); absent: the
    # default serpentine strip. Checked against tracks and holes by the board's geometry.
    led_map: list[list[int]] | None = None
    # Or the file `crib board map` wrote (the map the drilling template and `crib board
    # flash --map` use too); a relative path is beside this configuration file.
    led_map_file: Path | None = None

    @model_validator(mode="after")
    def _led_map(self) -> BoardSettings:
        if self.led_map_file is not None:
            self._read_led_map_file()
        if self.led_map is not None:
            from hardware.board.render import Geometry
            from hardware.errors import ConfigurationError as DeviceConfigError

            try:
                Geometry(self.tracks, self.holes, self.led_map)
            except DeviceConfigError as exc:
                raise ValueError(f"led_map: {exc}") from None
        return self

    def _read_led_map_file(self) -> None:
        from hardware.board.layout import read_map
        from hardware.errors import ConfigurationError as DeviceConfigError

        if self.led_map is not None:
            raise ValueError("led_map and led_map_file both given: keep one")
        path = self.led_map_file
        assert path is not None
        config = _config_file.get()
        if not path.is_absolute() and config is not None:
            path = config.parent / path
        try:
            doc = read_map(path)
        except DeviceConfigError as exc:
            raise ValueError(str(exc)) from None
        if (doc["tracks"], doc["holes"]) != (self.tracks, self.holes):
            raise ValueError(
                f"LED map {path} is for {doc['tracks']} tracks of {doc['holes']} holes; "
                f"[board] says {self.tracks} tracks of {self.holes} holes")
        self.led_map = doc["led_map"]

    @property
    def led_map_tuple(self) -> tuple[tuple[int, ...], ...] | None:
        """The map as `hardware.board.layout.BoardLayout(led_map=...)` takes it."""
        return None if self.led_map is None else tuple(tuple(r) for r in self.led_map)

    @field_validator("port")
    @classmethod
    def _port(cls, value: str) -> str:
        if not (value.startswith("/dev/") or "://" in value):
            raise ValueError(
                f"{value!r} is not a serial device: use /dev/serial/by-id/... or a pyserial URL"
            )
        return value

    @field_validator("spi_device")
    @classmethod
    def _spi_device(cls, value: str) -> str:
        if re.fullmatch(r"/dev/spidev\d+\.\d+", value) is None:
            raise ValueError(f"{value!r} is not an SPI device: use /dev/spidev0.0")
        return value


PinOption = int | float | bool | str
SHUFFLER_PIN_NAMES = ("motor", "router", "left_sensor", "right_sensor", "tray_sensor", "touch",
                      "led", "brake", "riser", "lid")
# The shuffler's builds (docs/hands-free.md): "handsfree" restacks the piles itself, "lotus"
# asks the player to stack them after every pass.
SHUFFLER_BUILDS = ("handsfree", "lotus")
# The plan a touch or the page's one button starts when [shuffle] plan is left out: the exact
# plan where the machine restacks (uniform, total variation 0), the coin plan where a person does.
BUILD_PLAN = {"handsfree": "exact", "lotus": "random"}


class ShufflerSettings(_Section):
    """The card shuffler: GPIO pins (and servo or sensor options) for the real one, a speed
    for the simulator."""

    mode: DeviceMode = DeviceMode.AUTO
    build: str = "handsfree"  # one of SHUFFLER_BUILDS
    pins: dict[str, int | float | bool | str] = Field(
        default_factory=lambda: dict(pin_table.shuffler_defaults())  # the one pin table
    )
    speed: float = Field(20.0, gt=0, le=1000)
    # Test only: the simulated feed jams at this card (counted over every card fed), once.
    simulate_jam_at: int | None = Field(None, ge=1)
    # Test only, the hands-free build: a card stalls on the simulated riser at this card
    # (counted over every card fed) and stays there until the player takes it out, once.
    simulate_stall_at: int | None = Field(None, ge=1)
    # The machine's card speed (mm/s), which `crib shuffler calibrate` measures and writes
    # here; every time budget below derives from it. Absent: the default build's arithmetic
    # (hardware.shuffler.design: an N20 at 1150 rpm under a 30 mm tyre, 1806 mm/s).
    feed_speed_mm_s: float | None = Field(None, ge=50, le=5000)
    # Each card's own speed past its beam, which falls with the cards still in the tray over
    # it: [left with 1 card in the tray, left with calibrated_cards, right with 1, right with
    # calibrated_cards] (mm/s), which calibrate measures over a full deck; the double-feed
    # and stuck-card tests judge every card against its own. Absent: one speed for all.
    card_speeds_mm_s: list[float] | None = Field(None, min_length=4, max_length=4)
    calibrated_cards: int | None = Field(None, ge=2, le=104)
    # The hands-free build's riser motor's PWM duty, which calibrate sets so that the cards
    # move at design.RISER_CARD_SPEED_MM_S past the beams (under the speed at which a card
    # stands up against a bay's end wall). Absent: design.RISER_DUTY_UNCALIBRATED.
    riser_duty: float | None = Field(None, gt=0, le=1)
    # The hands-free build's load cell (the NAU7802's signed 24-bit counts), measured at
    # bring-up with `crib inputs watch` (docs/hands-free.md, "Tare the load cell"): its
    # reading with the tray empty, the press turned out and the lid shut, and one card's
    # counts (a counted deck's reading less the tare, over its cards). Absent: 0 and the
    # datasheets' estimate (hardware.shuffler.gpio.COUNTS_PER_CARD), which no real cell
    # matches: every restack's weighing would then fail.
    load_cell_tare: float | None = Field(None, ge=-(2 ** 23), le=2 ** 23 - 1)
    load_cell_counts_per_card: float | None = Field(None, gt=0, le=2 ** 23)
    # The hands-free build's door servos' pulses (ms), [shut, open] by bay ("lower",
    # "upper"), found at bring-up with `crib shuffler jog --servo` as the horns sit
    # (docs/hands-free.md, "Set the doors' servo angles"). Absent: 1.0 shut, 2.0 open.
    door_pulse_ms: dict[str, list[float]] | None = None

    @field_validator("door_pulse_ms")
    @classmethod
    def _door_pulses(cls, value: dict[str, list[float]] | None
                     ) -> dict[str, list[float]] | None:
        from hardware.errors import HardwareError
        from hardware.shuffler.gpio import door_pulses

        try:
            door_pulses(value)
        except HardwareError as exc:
            raise ValueError(str(exc)) from None
        return value
    # Each of these, absent, derives from the card speed (hardware.shuffler.controller.Timing);
    # set, it is checked against the speed:
    # the pile sensors' glitch filter (a sixth of a card's transit past a beam, 15 ms at most),
    sensor_filter_ms: float | None = Field(None, ge=0, le=1000)
    # the router's own settle, command to a still flap (absent: from router_kind and the
    # servo's swing from left_angle to right_angle; the default SG90's, or a solenoid's),
    router_settle_ms: float | None = Field(None, ge=0, le=2000)
    # and the fail-safes that stop the motor: no card within card_timeout_s of a feed (a jam,
    # 3 flights from the gate to the beam); a pile sensor blocked blocked_limit_s (a stuck
    # card, 4 transits); a pass longer than pass_base_s + (per_card_s + settle) x cards.
    card_timeout_s: float | None = Field(None, gt=0, le=60)
    blocked_limit_s: float | None = Field(None, gt=0, le=60)
    pass_base_s: float | None = Field(None, gt=0, le=600)
    per_card_s: float | None = Field(None, gt=0, le=60)

    @model_validator(mode="after")
    def _timing_fits_the_speed(self) -> ShufflerSettings:
        from hardware.errors import HardwareError

        try:
            self.timing()
        except HardwareError as exc:
            explicit = [k for k in ("sensor_filter_ms", "card_timeout_s", "blocked_limit_s")
                        if getattr(self, k) is not None]
            raise ValueError(
                f"{' / '.join(explicit) or 'timing'} at feed_speed_mm_s = "
                f"{self.card_speed_mm_s:.0f}: {exc}"
            ) from None
        return self

    @property
    def card_speed_mm_s(self) -> float:
        """The configured card speed, or the default build's."""
        from hardware.shuffler import pace

        if self.feed_speed_mm_s is not None:
            return self.feed_speed_mm_s
        return pace.default_card_speed_mm_s()

    @field_validator("build")
    @classmethod
    def _build(cls, value: str) -> str:
        if value not in SHUFFLER_BUILDS:
            raise ValueError(f"unknown shuffler build {value!r}; one of "
                             f"{', '.join(map(repr, SHUFFLER_BUILDS))}")
        return value

    @property
    def hands_free(self) -> bool:
        """True for the build that restacks the piles itself."""
        return self.build == "handsfree"

    def measured(self) -> dict[str, Any]:
        """What bring-up measured, as the hands-free driver takes it: the load cell's tare
        and counts per card (`tare_raw`, `counts_per_card`) and the doors' pulses
        (`door_pulse_ms`), only those configured."""
        out: dict[str, Any] = {}
        if self.door_pulse_ms is not None:
            out["door_pulse_ms"] = self.door_pulse_ms
        if self.load_cell_tare is not None:
            out["tare_raw"] = self.load_cell_tare
        if self.load_cell_counts_per_card is not None:
            out["counts_per_card"] = self.load_cell_counts_per_card
        return out

    @field_validator("pins")
    @classmethod
    def _pins(cls, pins: dict[str, PinOption]) -> dict[str, PinOption]:
        if "touch" in pins:
            raise ValueError(
                "the touch sensor is configured once, as [inputs] touch (with "
                "touch_active_high); a touch starts or continues the shuffle"
            )
        for name in SHUFFLER_PIN_NAMES[:5]:
            if name not in pins:
                raise ValueError(f"pin {name} is missing")
        _check_pins({k: v for k, v in pins.items() if k in SHUFFLER_PIN_NAMES})  # type: ignore[misc]
        return pins

    @property
    def gpio(self) -> dict[str, int]:
        """Only the GPIO numbers, by name."""
        return {k: int(v) for k, v in self.pins.items() if k in SHUFFLER_PIN_NAMES}

    def timing(self) -> Timing:
        """The controller's `hardware.shuffler.controller.Timing` for the real machine: every
        budget from the card speed, the ones set here instead (checked against it).

        Raises hardware.errors.ShufflerError for a budget that cannot work at the speed.
        """
        from hardware.shuffler.controller import Timing
        from hardware.shuffler.gpio import router_settle_s

        settle = (router_settle_s(self.pins, self.hands_free) if self.router_settle_ms is None
                  else self.router_settle_ms / 1000.0)
        speeds = {}
        if self.card_speeds_mm_s is not None:
            speeds = {"speeds": tuple(self.card_speeds_mm_s),
                      "full_cards": self.calibrated_cards or 52}
        return Timing.for_speed(
            self.card_speed_mm_s, settle, **speeds,
            card_timeout=self.card_timeout_s, blocked_limit=self.blocked_limit_s,
            pass_base=self.pass_base_s, per_card=self.per_card_s,
            sensor_filter=None if self.sensor_filter_ms is None else self.sensor_filter_ms / 1000,
        )


def shuffler_pace(shuffler: ShufflerSettings) -> Any:
    """The pace (hardware.shuffler.pace.Pace) of the configured machine: its card speed,
    its router's settle and its sensors' filter, as the controller will time them."""
    from hardware.shuffler import pace

    timing = shuffler.timing()
    return pace.pace(feed_speed_mm_s=timing.feed_speed_mm_s,
                       router_settle_s=timing.router_move, filter_s=timing.sensor_filter)


class TrackPinSettings(_Section):
    """One track's encoder (A, B) and push button, as BCM numbers."""

    a: GpioPin
    b: GpioPin
    button: GpioPin


class InputSettings(_Section):
    """Encoders with buttons per track, the undo button and the shuffler's touch sensor."""

    mode: DeviceMode = DeviceMode.AUTO
    tracks: list[TrackPinSettings] = Field(
        default_factory=lambda: [
            TrackPinSettings(**t) for t in pin_table.track_defaults()  # the one pin table
        ],
        min_length=1,
        max_length=3,
    )
    undo: GpioPin = pin_table.gpio("inputs.undo")
    # The one touch sensor (TTP223 class): a touch starts or continues the shuffle.
    touch: GpioPin | None = pin_table.gpio("inputs.touch")
    touch_active_high: bool = True  # TTP223 modules drive their output high when touched
    bounce_ms: float = Field(20.0, ge=0, le=500)  # buttons bounce for 1 to 20 ms

    @property
    def pins(self) -> dict[str, int]:
        """Every pin by a name (for the uniqueness check)."""
        out = {"undo": self.undo}
        if self.touch is not None:
            out["touch"] = self.touch
        for i, t in enumerate(self.tracks):
            out |= {f"tracks.{i}.a": t.a, f"tracks.{i}.b": t.b, f"tracks.{i}.button": t.button}
        return out

    def mapping(self) -> dict[str, object]:
        """The pins as `hardware.inputs.InputPins.from_mapping` takes them."""
        return {"tracks": [t.model_dump() for t in self.tracks], "undo": self.undo,
                "touch": self.touch, "touch_active_high": self.touch_active_high}


class GameDefaults(_Section):
    """What a new game gets when the request leaves it out."""

    variant: str = "six-card"
    target: int | None = Field(None, ge=TARGET_MIN, le=TARGET_MAX)
    skunk: Literal[SKUNK_RULES] = "skunk"  # type: ignore[valid-type]
    muggins: bool = False
    mode: Literal["keeper", "cards"] = "keeper"

    @field_validator("variant")
    @classmethod
    def _variant(cls, value: str) -> str:
        if value not in RULES:
            raise ValueError(f"unknown variant {value!r}; one of {', '.join(RULES)}")
        return value


class ShuffleDefaults(_Section):
    """The shuffle the page offers first."""

    deck: Literal[52, 104] = 52
    # left out: the shuffler build's own plan (BUILD_PLAN), which Settings sets
    plan: Literal["random", "exact", "light"] = "random"


class ClubSettings(_Section):
    """The table's place in a club night: the broker, the club and this table's name."""

    broker: str = ""  # the broker's host name or address; "" = no club
    port: int = Field(0, ge=0, le=65535)  # 0: 1883, or 8883 with TLS
    club: str = ""
    table: str = ""
    password: str = ""
    password_file: Path | None = None
    tls: bool = False
    ca_file: Path | None = None
    homeassistant: bool = False  # publish Home Assistant's MQTT discovery for the scores

    @model_validator(mode="after")
    def _complete(self) -> ClubSettings:
        if not self.broker:
            return self
        from firmware_host.clubwire import check_slug

        for key in ("club", "table"):
            value = getattr(self, key)
            if not value:
                raise ValueError(f"club.{key} is needed when club.broker is set")
            check_slug(key, value)
        if not self.password and self.password_file is None:
            raise ValueError("club.password or club.password_file is needed when club.broker "
                             "is set (the broker's password for this table)")
        return self

    @property
    def enabled(self) -> bool:
        return bool(self.broker)

    @property
    def broker_port(self) -> int:
        return self.port or (8883 if self.tls else 1883)

    def secret(self) -> str:
        """The broker password (read from password_file when given); raises ConfigError
        naming the file when it cannot be read."""
        if self.password_file is None:
            return self.password
        try:
            return self.password_file.read_text().strip()
        except OSError as exc:
            raise ConfigError(f"club.password_file {self.password_file}: "
                              f"{exc.strerror}") from None


def default_state_dir() -> Path:
    """systemd's STATE_DIRECTORY, else ~/.local/state/cribbage-table."""
    systemd_dir = os.environ.get("STATE_DIRECTORY")
    if systemd_dir:
        return Path(systemd_dir.split(":")[0])
    return Path.home() / ".local" / "state" / "cribbage-table"


class Settings(BaseSettings):
    """Everything the daemon is configured by."""

    model_config = SettingsConfigDict(
        env_prefix="CRIB_", env_nested_delimiter="__", extra="forbid", validate_default=True
    )

    host: str = "0.0.0.0"
    port: int = Field(8080, ge=1, le=65535)
    state_dir: Path = Field(default_factory=default_state_dir)
    simulate: bool = False
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    allowed_hosts: list[str] = Field(default_factory=lambda: ["localhost", "cribbage.local"])
    board: BoardSettings = Field(default_factory=BoardSettings)
    shuffler: ShufflerSettings = Field(default_factory=ShufflerSettings)
    inputs: InputSettings = Field(default_factory=InputSettings)
    game: GameDefaults = Field(default_factory=GameDefaults)
    shuffle: ShuffleDefaults = Field(default_factory=ShuffleDefaults)
    club: ClubSettings = Field(default_factory=ClubSettings)
    pairing_code_ttl_s: float = Field(120.0, gt=0, le=3600)
    undo_hold_s: float = Field(3.0, gt=0, le=30)
    # Addresses of reverse proxies whose X-Forwarded-For is believed (none: it is ignored).
    trusted_proxies: list[str] = Field(default_factory=list, max_length=16)

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an IP address to bind (e.g. 0.0.0.0)") from None
        return value

    @model_validator(mode="after")
    def _plan_of_the_build(self) -> Settings:
        # [shuffle] plan left out: the build's own (set, it is the owner's choice)
        if "plan" not in self.shuffle.model_fields_set:
            self.shuffle.plan = BUILD_PLAN[self.shuffler.build]  # type: ignore[assignment]
        return self

    @model_validator(mode="after")
    def _pins_unique(self) -> Settings:
        seen: dict[int, str] = {}
        for device in ("shuffler", "inputs"):
            section = getattr(self, device)
            if section.mode == DeviceMode.ABSENT:
                continue
            pins = section.gpio if device == "shuffler" else section.pins
            for name, pin in pins.items():
                where = f"{device}.pins.{name}" if device == "shuffler" else f"inputs.{name}"
                if pin in seen:
                    raise ValueError(f"GPIO {pin} is used twice ({seen[pin]} and {where})")
                seen[pin] = where
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = _config_file.get()
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)

    @property
    def db_path(self) -> Path:
        """The sqlite database in the state directory."""
        return self.state_dir / "cribbage.sqlite3"

    def device_mode(self, device: str) -> DeviceMode | BoardMode:
        """The resolved mode of a device: auto and --simulate decided (the board may be spi)."""
        mode: DeviceMode | BoardMode = getattr(self, device).mode
        if mode == DeviceMode.ABSENT:
            return mode
        if self.simulate:
            return DeviceMode.SIMULATED
        if mode != DeviceMode.AUTO:
            return mode
        return resolve_auto(mode, on_raspberry_pi())


def resolve_auto(mode: DeviceMode | BoardMode | str, on_pi: bool) -> DeviceMode | BoardMode:
    """A device mode with "auto" decided: real on a Raspberry Pi, simulated elsewhere (the
    daemon and `crib doctor` both decide it here). Raises ValueError for an unknown mode."""
    if mode == DeviceMode.AUTO:
        return DeviceMode.REAL if on_pi else DeviceMode.SIMULATED
    return mode if isinstance(mode, DeviceMode | BoardMode) else BoardMode(mode)


def pi_model(root: Path = Path("/")) -> str | None:
    """The Raspberry Pi model its device tree names (read under `root`), or None off a Pi."""
    for rel in ("proc/device-tree/model", "sys/firmware/devicetree/base/model"):
        try:
            text = (root / rel).read_bytes().decode("ascii", "replace")
        except OSError:
            continue
        text = text.strip("\x00\n ")
        if "Raspberry Pi" in text:
            return text
    return None


def on_raspberry_pi(root: Path = Path("/")) -> bool:
    """Whether this machine says it is a Raspberry Pi (see `pi_model`)."""
    return pi_model(root) is not None


def config_path(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, bool]:
    """The configuration file to read and whether it was asked for explicitly."""
    if explicit:
        return Path(explicit), True
    env = os.environ.get("CRIB_CONFIG")
    if env:
        return Path(env), True
    state = os.environ.get("CRIB_STATE_DIR")
    return (Path(state) if state else default_state_dir()) / "config.toml", False


def _describe(error: dict[str, Any]) -> str:
    key = ".".join(str(part) for part in error["loc"]) or "pins"
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        return f"{key}: unknown key"
    if error["type"] == "missing":
        return f"{key}: required"
    shown = error.get("input")
    if isinstance(shown, dict | list) or shown is None:
        return f"{key}: {message}"
    return f"{key}: {message} (got {shown!r})"


def _source(loc: tuple[Any, ...], overrides: dict[str, Any], file: Path | None) -> str:
    """Where the value at `loc` came from, as a user would look for it: the command-line
    option, the environment variable, or the file (in that order of priority)."""
    if loc and loc[0] in overrides:
        return f"option --{str(loc[0]).replace('_', '-')}"
    env = {name.upper(): name for name in os.environ}
    for end in range(len(loc), 0, -1):
        name = "CRIB_" + "__".join(str(part) for part in loc[:end]).upper()
        if name in env:
            return f"environment {env[name]}"
    if file is not None:
        return f"config {file}"
    if not loc:
        crib = sorted(name for name in os.environ if name.upper().startswith("CRIB_"))
        if crib:
            return "environment " + ", ".join(crib)
    return "settings"


def load_settings(config: str | os.PathLike[str] | None = None, **overrides: Any) -> Settings:
    """Read the configuration; raises ConfigError with one line naming the key, the problem
    and where the value came from (option, environment variable or file)."""
    path, explicit = config_path(config)
    where = f"config {path}"
    if not config and explicit:
        where += " (from CRIB_CONFIG)"
    if path.exists():
        try:
            with path.open("rb") as handle:
                tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: not valid TOML: {exc}") from None
        except OSError as exc:
            raise ConfigError(f"{where}: cannot be read: {exc.strerror}") from None
        token = _config_file.set(path)
    elif explicit:
        raise ConfigError(f"{where}: no such file")
    else:
        token = _config_file.set(None)
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        file = path if path.exists() else None
        by_source: dict[str, list[str]] = {}
        for e in exc.errors():
            by_source.setdefault(_source(tuple(e["loc"]), given, file), []).append(_describe(e))
        raise ConfigError(
            "; ".join(f"{src}: {'; '.join(problems)}" for src, problems in by_source.items())
        ) from None
    finally:
        _config_file.reset(token)
