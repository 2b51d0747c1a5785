"""Marks for the tests of a fast path itself (server/store/fast_paths.py): skipped, with the
reason, where the process runs on the public path (``SPLENDOR_PUBLIC_PATHS=1`` or a
library whose internals differ), whose own behaviour other tests show."""

from __future__ import annotations

import pytest

from server.store.fast_paths import direct_redis, redis_shortfall
from server.web.socket_fast_paths import uvicorn_fast

needs_direct_redis = pytest.mark.skipif(
    not direct_redis(), reason="the Redis fast path is off here (server/store/fast_paths.py)"
)
needs_our_protocols = pytest.mark.skipif(
    not uvicorn_fast(),
    reason="uvicorn's own protocols are used here (server/web/socket_fast_paths.py)",
)
direct_redis_works = pytest.mark.skipif(
    redis_shortfall() is not None,
    reason="the installed redis-py lacks what server/store/direct_path.py uses (server/store/fast_paths.py)",
)
