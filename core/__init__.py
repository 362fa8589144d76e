"""sealscope.core: formats and verdicts for arcaeon evidence, pure and typed.

Imports only the standard library and orjson; never prints, never exits.
"""
