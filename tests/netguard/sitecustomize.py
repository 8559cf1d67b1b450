"""Guards child Python processes of the tests against non-loopback connections.

On PYTHONPATH only while tests run (tests/conftest.py puts it there); it does something only
when `FCBENCH_TESTS_NO_NETWORK=1`, and then installs `tests/network_guard.py`, logging each
refused attempt to `$FCBENCH_TESTS_NETWORK_LOG` for the test that started the process.
"""

import os
import sys

if os.environ.get("FCBENCH_TESTS_NO_NETWORK") == "1":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import network_guard

        network_guard.install(network_guard.log_to_file(
            os.environ.get("FCBENCH_TESTS_NETWORK_LOG", os.devnull)))
    finally:
        del sys.path[0]
