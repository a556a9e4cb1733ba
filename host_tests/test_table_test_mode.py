"""Test mode on the whole table (App on the simulated board): every lamp, every sensor, every
digit.  The rings cycle their patterns (test_controller), the sensors are listed on the
display, and here: every segment of every meter-sign digit lit, the display inverted on
every other step so that every pixel is lit once, and a beep at each step; BACK puts
everything back."""

from host_tests.test_table_payout import BoardRig

ALL_LIT = "8." * 8          # the MAX7219 display test lights every segment and point


def _open(tmp_path):
    b = BoardRig(tmp_path)
    b.ram_clear()                            # opens the table
    b.run(6000)                              # the sign has counted up to the pool
    return b


def test_test_mode_lights_every_digit_inverts_the_display_and_beeps(tmp_path):
    b = _open(tmp_path)
    before = b.table.chain.text(0)
    assert before.strip() == "10000.00"      # the default pool's reset amount
    tones = len(b.table.pwm.tones())
    b.key(True)
    b.press("LOCK", long=True)                   # key on + hold LOCK: test mode
    assert b.app.controller.phase == 8      # tc.TEST
    for module in range(len(b.table.chain.modules)):
        assert b.table.chain.text(module) == ALL_LIT
    assert not b.table.oled.inverse
    seen = []
    for _ in range(3):
        b.press("OK")
        seen.append(b.table.oled.inverse)
    assert seen == [True, False, True]      # every pixel lit on alternate steps
    assert len(b.table.pwm.tones()) >= tones + 4      # one beep on entering, one per step
    b.press("BACK")
    assert b.app.controller.phase == 0      # tc.OPEN
    assert b.table.chain.text(0) == before
    assert not b.table.oled.inverse


def test_a_display_that_misses_the_end_of_test_mode_is_not_left_inverted(tmp_path):
    """The display stops answering (a loose connector) on an inverted step and the supervisor
    leaves test mode meanwhile: when it answers again it shows the table's screen the right
    way round, not inverted for the rest of the shift."""
    from boards import base

    b = _open(tmp_path)
    oled = b.table.oled
    b.key(True)
    b.press("LOCK", long=True)
    b.press("OK")
    assert oled.inverse                      # an inverted step
    b.table.i2c.detach(base.OLED_ADDR)
    b.chip(2)                                # the sensor test: the screen's update fails
    assert not b.app.display_ok
    b.press("BACK")
    assert b.app.controller.phase == 0       # tc.OPEN
    b.table.i2c.attach(base.OLED_ADDR, oled)     # plugged back in: it kept its inversion
    b.run(3000)
    assert b.app.display_ok
    assert not oled.inverse
