"""The web view's pages, one module each; their routes are listed in bot/web/app.py."""
