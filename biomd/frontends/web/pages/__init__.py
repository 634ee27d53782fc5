"""The web view's pages, one module each; their routes are listed in biomd/frontends/web/app.py."""
