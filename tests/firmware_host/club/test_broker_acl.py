"""The club's broker configuration on a real Mosquitto: a table's credentials publish only
its own topics; nobody gets in without a password."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from firmware_host.club.broker import BrokerConfigError, acl_text, write_config
from firmware_host.clubwire import standings_topic, table_topic
from tests.firmware_host.club.broker_helpers import Broker


def _sub(broker: Broker, user: str, topic: str, count: int = 1, wait: float = 3
         ) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", user,
         "-P", broker.passwords[user], "-t", topic, "-C", str(count), "-W", str(int(wait)),
         "-q", "1", "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)  # subscribed before anyone publishes
    return proc


def _pub(broker: Broker, user: str, password: str, topic: str, message: str,
         retain: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", user, "-P", password,
         "-t", topic, "-m", message, "-q", "1", *(["-r"] if retain else [])],
        capture_output=True, text=True, timeout=10)



def test_a_table_publishes_its_own_results_and_the_director_gets_them(broker: Broker) -> None:
    topic = table_topic("club", "t1", "results")
    sub = _sub(broker, "director", "crib/v1/club/#")
    assert _pub(broker, "t1", "one-secret", topic, '{"v":1}').returncode == 0
    out, _ = sub.communicate(timeout=10)
    assert out.strip() == f'{topic} {{"v":1}}'


def test_a_table_cannot_publish_another_tables_results(broker: Broker) -> None:
    sub = _sub(broker, "director", "crib/v1/club/#", wait=2)
    # Mosquitto accepts the PUBLISH and drops it: nothing reaches the director.
    _pub(broker, "t1", "one-secret", table_topic("club", "t2", "results"), '{"v":1}')
    _pub(broker, "t1", "one-secret", table_topic("club", "t1", "seating"), '{"v":1}')
    _pub(broker, "t1", "one-secret", standings_topic("club"), '{"v":1}')
    out, _ = sub.communicate(timeout=10)
    assert out == ""


def test_a_table_reads_only_its_own_seating(broker: Broker) -> None:
    sub = _sub(broker, "t1", "crib/v1/club/tables/+/seating", count=2, wait=2)
    _pub(broker, "director", "d-secret", table_topic("club", "t2", "seating"), "two")
    _pub(broker, "director", "d-secret", table_topic("club", "t1", "seating"), "one")
    out, _ = sub.communicate(timeout=10)
    assert out.strip() == f"{table_topic('club', 't1', 'seating')} one"


def test_wrong_password_and_anonymous_are_refused(broker: Broker) -> None:
    bad = _pub(broker, "t1", "guess", table_topic("club", "t1", "results"), "x")
    assert bad.returncode != 0 and "not authorised" in bad.stderr.lower()
    anon = subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port),
                           "-t", "crib/v1/club/x", "-m", "x"], capture_output=True, text=True,
                          timeout=10)
    assert anon.returncode != 0


def test_the_acl_names_no_other_club_and_refuses_bad_names(tmp_path: Path) -> None:
    assert "crib/v1/other" not in acl_text("club")
    with pytest.raises(BrokerConfigError, match="Table 1"):
        write_config(tmp_path, "club", {"director": "x", "Table 1": "y"})
    with pytest.raises(BrokerConfigError, match="director"):
        write_config(tmp_path, "club", {"t1": "y"})
    with pytest.raises(BrokerConfigError, match="no password for t1"):
        write_config(tmp_path, "club", {"director": "x", "t1": ""})
