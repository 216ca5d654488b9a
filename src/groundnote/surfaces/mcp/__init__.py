"""MCP: tools and prompts from the registry, over stdio and streamable HTTP.

`server` builds the SDK server; `front` answers `initialize` before the SDK is imported and
`stdio` serves the SDK on the wire it claimed. Nothing is imported here, so that the front
starts without the SDK (see front.py).
"""
