"""The director's MQTT link (paho-mqtt): a persistent session that takes every table's
messages with QoS 1 and hands them to the night, and publishes what the night sends."""

from __future__ import annotations

import logging
import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from firmware_host.club.director.config import DirectorConfig
from firmware_host.club.director.night import Night
from firmware_host.club.schema import DIRECTOR_USER, PREFIX

log = logging.getLogger("crib.club")

KEEPALIVE_S = 15


def client_id(club: str) -> str:
    """The fixed client id: the broker keeps this session's queue while we are away."""
    return f"crib-director-{club}"


class Intake:
    """Component: `start()` connects in the background (and keeps reconnecting); messages
    arrive on paho's thread, where the night commits each before paho acknowledges it."""

    def __init__(self, config: DirectorConfig, night: Night, password: str) -> None:
        self.config = config
        self.night = night
        self.connected = False
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id(config.club),
                        protocol=mqtt.MQTTv5)
        c.username_pw_set(DIRECTOR_USER, password)
        if config.tls:
            c.tls_set(ca_certs=config.ca_file or None, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        c.reconnect_delay_set(min_delay=1, max_delay=10)
        c.on_connect = self._connected
        c.on_disconnect = self._disconnected
        c.on_message = self._message
        self.client = c
        night.publish = self.publish

    @property
    def topic(self) -> str:
        return f"{PREFIX}/{self.config.club}/tables/+/+"

    def start(self) -> None:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = self.config.session_expiry
        self.client.connect_async(self.config.broker, self.config.port, KEEPALIVE_S,
                                  clean_start=False, properties=props)
        self.client.loop_start()

    def stop(self) -> None:
        self.connected = False  # (no "lost the broker" line for our own goodbye)
        self.client.disconnect()
        self.client.loop_stop()

    def publish(self, topic: str, data: bytes) -> None:
        """Publish retained with QoS 1 (paho sends it when connected; every (re)connect
        publishes the night's state again anyway)."""
        self.client.publish(topic, data, qos=1, retain=True)

    def status(self) -> str:
        where = f"{self.config.broker}:{self.config.port}"
        return f"broker {where}: connected" if self.connected else f"broker {where}: offline"

    def _connected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                   properties: Any) -> None:
        if reason.is_failure:
            log.error("the broker refused the director: %s", reason)
            return
        self.connected = True
        log.info("connected to the broker %s:%d (session %s)", self.config.broker,
                 self.config.port, "resumed" if flags.session_present else "new")
        # No local: the director's own seating and counted messages do not come back.
        client.subscribe(self.topic, options=SubscribeOptions(qos=1, noLocal=True))
        self.night.on_connect()

    def _disconnected(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                      properties: Any) -> None:
        if self.connected:
            log.warning("lost the broker (%s): reconnecting", reason)
        self.connected = False

    def _message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        # Returns after the commit: paho acknowledges the QoS 1 message only then.
        self.night.on_message(message.topic, message.payload, bool(message.retain))
