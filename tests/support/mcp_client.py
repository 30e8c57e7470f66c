"""A real MCP client (the official Python SDK) driving `fbc-edit mcp` for tests/it/mcp.rs.

Reads a plan from standard input: {"command": ..., "args": [...], "cwd": ..., "calls": [{"name":
..., "arguments": {...}}, ...]}. Starts the server over stdio, initializes, lists the tools, makes
each call in order, and prints one JSON object: the server's name and instructions, the tools as
listed, and each call's result (isError, structuredContent, the text of its content).
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    plan = json.load(sys.stdin)
    params = StdioServerParameters(
        command=plan["command"], args=plan.get("args", []), cwd=plan.get("cwd")
    )
    out = {"calls": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            out["instructions"] = init.instructions
            out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
            for call in plan["calls"]:
                r = await session.call_tool(call["name"], call.get("arguments", {}))
                out["calls"].append(
                    {
                        "isError": bool(r.is_error),
                        "structuredContent": r.structured_content,
                        "text": [c.text for c in r.content if getattr(c, "type", "") == "text"],
                    }
                )
    json.dump(out, sys.stdout)


asyncio.run(main())
