"""One APIRouter per area of the API; each module's `router()` builds it when called."""
