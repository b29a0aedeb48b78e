"""The data layer's plumbing: clients, Lua scripts, the commit guard, MULTI, staged reads, merged writes, locks."""
