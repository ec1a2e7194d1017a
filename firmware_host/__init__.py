"""The daemon: configuration, services, web API and page, persistence, command line."""
