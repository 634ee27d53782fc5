"""A five-token call that tells whether an endpoint, key and model work, for `biomd setup`
and `biomd doctor`. It is the one model call not written to `llm_usage`: setup makes it
before any data dir exists, and doctor never writes to the store."""

from __future__ import annotations


async def try_language_model(url: str, key: str, model: str) -> str | None:
    """One tiny call; None if it worked, else what went wrong, in a sentence."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key=key or "none", timeout=60, max_retries=0)
    try:
        await client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "Reply with the single word OK."}],
            max_tokens=5,
        )
    except openai.AuthenticationError:
        return "the key was rejected."
    except openai.NotFoundError:
        return f"the endpoint does not know the model {model!r} (or the URL is wrong)."
    except openai.APIConnectionError:
        return f"could not reach {url}."
    except openai.APIStatusError as exc:
        return f"the endpoint answered {exc.status_code}: {str(exc.message)[:200]}"
    except openai.OpenAIError as exc:
        return str(exc)[:200]
    finally:
        await client.close()
    return None
