"""The web API and page: `create_app(settings, services)` builds the FastAPI app."""

from firmware_host.api.app import create_app

__all__ = ["create_app"]
