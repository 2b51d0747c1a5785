"""What the ratings tests compare: every key of the ratings read model and its value."""

from __future__ import annotations

import redis.asyncio as aioredis


async def ratings_state(client: aioredis.Redis) -> dict[bytes, object]:
    """Every ``{ratings:*`` key and its whole value (hashes, sorted sets with scores,
    lists)."""
    found: dict[bytes, object] = {}
    async for key in client.scan_iter(match=b"{ratings:*"):
        kind = await client.type(key)
        if kind == b"hash":
            found[key] = await client.hgetall(key)
        elif kind == b"zset":
            found[key] = await client.zrange(key, 0, -1, withscores=True)
        else:
            found[key] = await client.lrange(key, 0, -1)
    return found
