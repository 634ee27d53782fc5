"""The pictures of a life (timeline, people), drawn once as SVG for the web view and PNG for
the bots."""
