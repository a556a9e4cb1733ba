"""A linked table's network end: the MQTT client and the TableLink wired together.

``Station(table, key, opener)`` subscribes to the table's down topic and feeds every
message to its TableLink; ``service(now_ms, now_s)`` is the one call the main loop makes.
The opener is ``mqtt.tcp_opener(host, port)`` on the board and on the host alike.

``client_factory(client_id, opener, on_message, keepalive)`` makes the MQTT client: the
project's own ``mqtt.Client`` by default (CPython hosts: simulator, tools, tests), or
``umqtt_client.factory(host, port)`` for MicroPython's umqtt.simple on the board.
"""

from firmware.link import mqtt
from firmware.link.tablelink import TableLink

KEEPALIVE = 5  # s; with the link's own timeouts a dead broker is noticed within seconds


class Station:
    """MQTT client + TableLink for one table (``link`` is the TableLink)."""

    def __init__(self, table, key, opener, log=None, section=None, keepalive=KEEPALIVE,
                 client_factory=None):
        if section is None:
            self.link = TableLink(table, key, self._send, log)
        else:
            self.link = TableLink.restore(table, key, self._send, section, log)
        self.now = 0
        self.stopped = False
        make = client_factory or mqtt.Client
        self.client = make("table-%d" % table, opener, self._receive, keepalive)
        self.client.subscribe(self.link.topic_down)

    def _send(self, topic, payload):
        return self.client.publish(topic, payload)

    def _receive(self, topic, payload):
        self.link.on_message(topic, payload, self.now)

    def service(self, now, now_s=None, stop=None):
        """Run the MQTT client and the link state machine once; returns the link state.

        stop: None, or why the link must not run (the table in RAM ERROR): the connection is
        closed and the link is DOWN, sending and taking nothing, until a pass without it."""
        self.now = now
        if stop is not None:
            if not self.stopped:
                self.stopped = True
                self.client.close()
            return self.link.service(now, now_s, False)
        self.stopped = False
        up = self.client.service(now)
        return self.link.service(now, now_s, up)

    def close(self):
        self.client.close()
