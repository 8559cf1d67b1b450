"""A plugin module whose import is interrupted by a real SIGINT (the user's Ctrl-C, sent here
by the module itself so that a test can time it): the KeyboardInterrupt must stop fcbench."""

import os
import signal
import time

os.kill(os.getpid(), signal.SIGINT)
time.sleep(10)  # the signal's handler raises here, long before the sleep ends
