"""Club night: tables and a director over an MQTT broker (Mosquitto by default).

`schema` is the wire contract (topics and JSON payloads, versioned); `broker` writes a
Mosquitto configuration with a user per table and an ACL that keeps each table to its own
topics; `table` is the daemon's component; `director` is `crib club serve`.
"""
