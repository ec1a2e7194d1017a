"""The daemon's components, each in its own module with `start()` and `stop()`.

They are built and wired in one visible function, `firmware_host.services.build_services`.
"""
