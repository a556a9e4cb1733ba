"""link package: a table's side of the linked progressive (codec, MQTT client, link state machine)."""
