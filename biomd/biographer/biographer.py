"""The biographer's work on this corpus, put together: the conversation with the owner
(chat.py), rounds of reading (reading_round.py) and what they cost (reading_cost.py), bio.md's
size (bio_budget.py), and analysis; each turn is run by an `Agent` on the backend's runner."""

from __future__ import annotations

from biomd.biographer.backend import Backend
from biomd.biographer.bio_budget import BioBudget
from biomd.biographer.chat import Conversation
from biomd.biographer.profile import Profile
from biomd.biographer.reading.reading_cost import ReadingCost, cache_of
from biomd.biographer.reading.reading_round import ReadingRounds
from biomd.biographer.tools import Toolbox
from biomd.biographer.turn import Agent, StepFn, TurnResult
from biomd.biographer.turn_context import TurnContext
from biomd.errors import NotFound
from biomd.models.llm import TurnModel
from biomd.retrieval.search import Searcher
from biomd.settings import Settings
from biomd.storage.store import Store


class Biographer:
    """The biographer's parts, wired here from the settings: each part is given its own
    group (and the few values of others it needs), not the whole settings."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        searcher: Searcher,
        profile: Profile,
        backend: Backend,
    ) -> None:
        self.settings = settings
        self.store = store
        self.searcher = searcher
        self.profile = profile
        self.backend = backend
        s = settings
        self.budget = BioBudget(
            s.biographer.bio_max_chars, s.llm.max_tokens, store, profile, backend
        )
        self.cost = ReadingCost(
            s.reading,
            s.owner.names,
            s.reader_endpoint(),
            cache_of(s),
            store,
            profile,
            backend,
            self.budget,
        )
        self.chat = Conversation(s.chat, s.zone, store, profile, self.agent, self.budget)
        self.reading = ReadingRounds(
            s.reading,
            s.owner.names,
            store,
            searcher,
            profile,
            backend,
            self.agent,
            self.cost,
            self.budget,
            s.owner.language,
        )

    @property
    def configured(self) -> bool:
        """Whether a language model can be called at all."""
        return self.backend.configured

    @property
    def missing(self) -> str:
        """What to do to set the model up, when it is not configured."""
        return self.backend.missing

    def model(self) -> TurnModel:
        """The configured model; LLMNotConfigured says what to set when there is none."""
        return self.backend.model()

    def toolbox(self, turn: TurnContext) -> Toolbox:
        """The tools of one turn (here, or in the Codex turn's tool server)."""
        return Toolbox(self.searcher, self.profile, self.settings.biographer.read_max_chars, turn)

    def agent(self) -> Agent:
        """Turns on the backend's runner: Codex runs its own tool loop, any other model runs
        in biomd's."""
        s = self.settings
        return Agent(
            self.backend.runner(),
            self.model(),
            self.toolbox,
            self.profile.load,
            self.store,
            bio_budget=s.biographer.bio_max_chars,
            owner_names=s.owner.names,
            language=s.owner.language,
            evidence_chars=s.chat.evidence_chars,
            tools_with_evidence=s.chat_tools_with_evidence,
        )

    async def analyse(
        self, document_id: int | None = None, focus: str = "", on_step: StepFn | None = None
    ) -> TurnResult:
        """An analysis turn: over one source against the rest, on a focus, or the whole."""
        if focus:
            request = focus
        elif document_id is not None:
            doc = await self.store.documents.get(document_id)
            if doc is None:
                raise NotFound(f"There is no source #{document_id}.")
            request = (
                f"Analyse source #{document_id} ({doc.name!r}) against everything else: what "
                "does it connect to, confirm or contradict?"
            )
        else:
            request = "Analyse the whole corpus for patterns bio.md does not have yet."
        result = await self.agent().run(
            "analysis",
            request,
            steps=self.settings.biographer.analysis_steps,
            document_id=document_id,
            on_step=on_step,
        )
        await self.budget.keep_within()
        return result
