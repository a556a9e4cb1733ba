#!/usr/bin/env bash
# Install the Mosquitto MQTT broker from Debian's packages if it is missing.
# The link tests (host_tests/test_link_*.py) start their own broker on a free loopback port
# and fail, rather than skip, without it.  The system service is not started or needed.
set -euo pipefail
if command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "mosquitto is missing; run as root: apt-get update && apt-get install -y mosquitto" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends mosquitto >/dev/null
# Debian's package may start the system broker on port 1883; the tests do not use it.
if command -v systemctl >/dev/null 2>&1; then
    systemctl stop mosquitto >/dev/null 2>&1 || true
fi
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]
