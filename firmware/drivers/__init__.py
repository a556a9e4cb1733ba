"""Drivers: one module per chip or input type.

Every driver takes its bus or pin object in its constructor (it never imports ``machine``),
is given the time (millisecond ticks) as an argument, allocates its buffers once in
``__init__``, and allocates nothing in the methods the loop calls every tick.

    mcp23017      MCP23017 16-input expander over I2C (spot sensors)
    spot_sensors  debounce, chatter / stuck / bus faults -> PLACED, REMOVED, FAULT, CLEARED
    buttons       dealer panel buttons, key switch, logic door -> PRESS, LONG, REPEAT, RELEASE, ...
    shoe          card-reading shoe line protocol over a UART (docs/shoe-protocol.md)
    spot_lights   WS2812 rings, one pattern per seat
    meter_sign    MAX7219 7-segment meter sign, one line per pool
    oled          SSD1306 dealer display through framebuf
    buzzer        PWM beep patterns
    watchdog      hardware watchdog fed only while the loop is healthy
    events        the fixed-size event queue the input drivers share
    ticks         wrap-safe tick arithmetic
"""
