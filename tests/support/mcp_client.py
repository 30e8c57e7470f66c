"""A real MCP client (the official Python SDK) driving `fbc-edit mcp` for tests/it/mcp.rs.

Reads a plan from standard input: {"command": ..., "args": [...], "cwd": ..., "calls": [{"name":
..., "arguments": {...}}, ...]}. Starts the server over stdio, initializes, lists the tools, makes
each call in order, and prints one JSON object: the server's name and instructions, the tools as
listed, and each call's result (isError, structuredContent, the text of its content).

The SDK itself checks every result that is not an error against the tool's declared outputSchema
(a mismatch raises, and this script fails). For each such result the script also records whether
the SDK would have refused the same result with its structured content tampered with
(`tamperedRefused`): the schema declared is not one that takes anything.
"""

import asyncio
import copy
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def tampered(value):
    """The structured content with a wrong type in place of each of its values; {} when empty."""
    out = copy.deepcopy(value)
    if isinstance(out, dict) and out:
        for key in out:
            out[key] = {"tampered": [1, 2, 3]}
    else:
        out = "tampered"
    return out


async def refuses_tampered(session, name, result):
    bad = result.model_copy(update={"structured_content": tampered(result.structured_content)})
    try:
        await session.validate_tool_result(name, bad)
    except RuntimeError as e:
        return "Invalid structured content" in str(e)
    return False


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
                seen = {
                    "isError": bool(r.is_error),
                    "structuredContent": r.structured_content,
                    "text": [c.text for c in r.content if getattr(c, "type", "") == "text"],
                }
                if not r.is_error:
                    seen["tamperedRefused"] = await refuses_tampered(session, call["name"], r)
                out["calls"].append(seen)
    json.dump(out, sys.stdout)


asyncio.run(main())
