"""Reading: a source turned into bio.md. The notes pass (the reader's notes, their quotes
checked), then reading turns that place the notes; a reading round runs both, priced first."""
