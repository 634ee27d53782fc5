"""Sharing, one package: bio.md written for an audience (audiences, people, portrait, scan,
support: pure; writer.py: the model's writing), people shown by role or initial, no source
text, a final privacy scan; and the files it makes and the service that keeps them."""
