"""biomd as the memory of the owner's other assistants (part of the app layer): how each one
is connected (mcp_config: the MCP snippets; hermes: the Hermes Agent memory provider's
install), and what they are shown (recall: the block sent before each of their model calls;
portrait: the short portrait for their system prompt)."""
