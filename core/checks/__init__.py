"""Every kind's own check (`sealscope check`, KINDS.md): one module per kind, each with
`check(path, ctx) -> KindCheck`; `result.KindCheck` is what they return."""
