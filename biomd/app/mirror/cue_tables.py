"""The mirror's cue words and phrases, a table per language: what makes an owner's line a
candidate for a pattern's shape (a decision framed as growth, a reassurance, a judgement for
or against something, a hurt, a plan). A cue only has to find a shape; the model's one small
question decides it. Matched on whole folded words (`biomd.fold`: case and accents
ignored), or on a word's beginning where the term ends with "*". Data only."""

from __future__ import annotations

Table = dict[str, tuple[str, ...]]

GROWTH: Table = {
    "en": ("time for a change", "growth", "to grow", "fresh start", "new start", "moving on",
           "move on", "new chapter", "new beginning", "start over", "next step",
           "need a change", "reinvent", "step up"),
    "pt": ("hora de mudar", "crescimento", "crescer", "recomecar", "recomeco", "nova fase",
           "novo capitulo", "seguir em frente", "preciso de mudar", "mudanca de ares"),
    "es": ("hora de cambiar", "crecimiento", "crecer", "empezar de cero", "empezar de nuevo",
           "nueva etapa", "nuevo capitulo", "pasar pagina", "seguir adelante",
           "necesito un cambio"),
    "de": ("zeit fur veranderung", "zeit fur was neues", "wachstum", "wachsen", "neuanfang",
           "neu anfangen", "neues kapitel", "weiterentwickeln", "weiterentwicklung",
           "nach vorne schauen", "tapetenwechsel", "brauche eine veranderung"),
    "fr": ("temps de changer", "croissance", "grandir", "nouveau depart", "repartir a zero",
           "nouveau chapitre", "tourner la page", "aller de l'avant", "besoin de changement",
           "evoluer"),
    "it": ("ora di cambiare", "crescita", "crescere", "nuovo inizio", "ricominciare",
           "nuovo capitolo", "voltare pagina", "andare avanti", "ho bisogno di cambiare"),
    "nl": ("tijd voor verandering", "groei", "groeien", "nieuwe start", "opnieuw beginnen",
           "nieuw hoofdstuk", "verder gaan", "nieuwe stap", "toe aan iets nieuws"),
}  # fmt: skip
"""A decision framed as growth or a change."""

REASSURE: Table = {
    "en": ("no worries", "all good", "it's fine", "its fine", "it's ok", "its ok", "it's okay",
           "don't worry", "dont worry", "no problem", "all fine", "never mind", "no big deal",
           "forget it", "it's nothing", "let's just leave it", "let it go", "we're good",
           "we're fine", "totally fine", "all is well", "nothing to worry"),
    "pt": ("tudo bem", "tudo certo", "nao faz mal", "nao te preocupes", "nao se preocupe",
           "sem problema", "esquece", "deixa estar", "ta tudo bem", "esta tudo bem", "relaxa"),
    "es": ("todo bien", "no pasa nada", "no te preocupes", "sin problema", "olvidalo",
           "tranquilo", "tranquila", "esta bien", "todo esta bien", "dejalo"),
    "de": ("alles gut", "alles okay", "alles ok", "kein problem", "keine sorge",
           "mach dir keine sorgen", "schon gut", "passt schon", "vergiss es", "nicht schlimm",
           "ist okay", "ist ok", "alles in ordnung", "lass gut sein"),
    "fr": ("pas de souci", "pas de soucis", "tout va bien", "c'est rien", "ce n'est rien",
           "pas grave", "t'inquiete", "ne t'inquiete pas", "aucun probleme", "laisse tomber",
           "c'est bon", "ca va"),
    "it": ("tutto bene", "non preoccuparti", "nessun problema", "non fa niente", "lascia stare",
           "tranquillo", "tranquilla", "va bene", "figurati"),
    "nl": ("geen zorgen", "alles goed", "geen probleem", "maakt niet uit", "laat maar",
           "komt goed", "niks aan de hand", "geeft niet", "is prima"),
}  # fmt: skip
"""Telling someone all is well between you, or that something doesn't matter."""

POSITIVE: Table = {
    "en": ("love", "loved", "adore", "miss", "missed", "happy", "happier", "always wanted",
           "favourite", "favorite", "best", "amazing", "wonderful", "enjoy*", "proud of",
           "grateful", "want to go back", "move back", "dream", "perfect"),
    "pt": ("adoro", "amo", "gosto", "gostei", "saudade*", "feliz", "sempre quis", "preferid*",
           "melhor", "incrivel", "maravilhos*", "orgulho", "sonho", "perfeit*", "voltar"),
    "es": ("me encanta", "encanta*", "amo", "echo de menos", "extrano", "feliz",
           "siempre quise", "favorit*", "mejor", "increible", "maravillos*", "orgullos*",
           "sueno", "perfect*", "volver"),
    "de": ("liebe", "lieb*", "vermisse", "vermisst", "glucklich", "wollte immer",
           "lieblings*", "beste", "toll", "wunderbar", "wunderschon", "stolz", "traum",
           "perfekt", "genieße", "geniesse", "zuruck"),
    "fr": ("adore", "aime", "j'aime", "manque", "heureux", "heureuse", "toujours voulu",
           "prefere*", "meilleur*", "incroyable", "merveilleu*", "fier", "fiere", "reve",
           "parfait*", "revenir"),
    "it": ("adoro", "amo", "mi piace", "mi manca", "felice", "ho sempre voluto", "preferit*",
           "migliore", "meraviglios*", "orgoglios*", "sogno", "perfett*", "tornare"),
    "nl": ("hou van", "houd van", "mis", "gelukkig", "altijd gewild", "favoriet*", "beste",
           "geweldig", "prachtig", "trots", "droom", "perfect", "terug"),
}  # fmt: skip
"""A judgement for something: love, miss, happy, want back."""

NEGATIVE: Table = {
    "en": ("hate", "hated", "never liked", "never want", "never again", "can't stand",
           "cant stand", "wore me out", "sick of", "worst", "awful", "terrible", "tired of",
           "fed up", "glad to leave", "glad i left", "miserable", "horrible", "regret*",
           "dread*", "couldn't wait to leave"),
    "pt": ("odeio", "odiei", "nunca gostei", "nunca mais", "nao suporto", "farta de",
           "farto de", "pior", "horrivel", "terrivel", "cansad* de", "infeliz",
           "arrependi*", "detesto"),
    "es": ("odio", "odie", "nunca me gusto", "nunca mas", "no soporto", "harta de",
           "harto de", "peor", "horrible", "terrible", "cansad* de", "infeliz",
           "me arrepiento", "detesto"),
    "de": ("hasse", "gehasst", "nie gemocht", "nie wieder", "nie mehr", "halte es nicht aus",
           "satt", "schlimmste", "furchtbar", "schrecklich", "mude von", "unglucklich",
           "bereue", "bereut", "froh weg", "nervt", "kaputt gemacht"),
    "fr": ("deteste", "jamais aime", "plus jamais", "supporte pas", "marre", "pire",
           "horrible", "terrible", "fatigue de", "malheureu*", "regrette", "content de partir"),
    "it": ("odio", "odiato", "mai piaciuto", "mai piu", "non sopporto", "stufo", "stufa",
           "peggiore", "orribile", "terribile", "stanco di", "stanca di", "infelice",
           "mi pento"),
    "nl": ("haat", "gehaat", "nooit leuk", "nooit meer", "kan niet tegen", "zat van",
           "ergste", "vreselijk", "verschrikkelijk", "moe van", "ongelukkig", "spijt"),
}  # fmt: skip
"""A judgement against something: hate, never again, sick of."""

HURT: Table = {
    "it": ("ferit*", "arrabbiat*", "litigat*", "litigio", "discussione", "urlato", "criticat*",
           "umiliat*", "ignorat*", "dimenticat*", "delus*", "geloso", "gelosa", "preoccupat*",
           "triste", "pianto", "tradit*", "offes*", "conflitto", "frustrat*", "sol*"),
    "nl": ("gekwetst", "boos", "kwaad", "ruzie", "gescholden", "bekritiseerd", "vernederd",
           "genegeerd", "vergeten", "teleurgesteld", "jaloers", "bezorgd", "ongerust",
           "verdrietig", "gehuild", "verraden", "beledigd", "conflict", "gefrustreerd",
           "eenzaam"),
}  # fmt: skip
"""A hurt or a conflict, in the languages `biomd.biographer.cues.HURT` lacks."""

PLAN: Table = {
    "en": ("i will", "i'll", "i am going to", "i'm going to", "im going to", "i plan to",
           "i promise", "promise myself", "from now on", "no more", "i want to", "this year i",
           "i'm gonna", "i must"),
    "pt": ("vou", "irei", "prometo", "a partir de agora", "nunca mais vou", "chega de",
           "este ano vou", "quero"),
    "es": ("voy a", "prometo", "a partir de ahora", "nunca mas voy", "se acabo", "este ano voy",
           "quiero"),
    "de": ("ich werde", "werde ich", "ich will", "ich verspreche", "ab jetzt", "ab sofort",
           "schluss mit", "keine mehr", "nie wieder", "dieses jahr werde", "ich hore auf",
           "vorsatz"),
    "fr": ("je vais", "je promets", "a partir de maintenant", "desormais", "fini les",
           "plus de", "cette annee je", "je veux", "resolution"),
    "it": ("faro", "voglio", "prometto", "d'ora in poi", "basta con", "quest'anno",
           "smettero", "iniziero", "buon proposito"),
    "nl": ("ik ga", "ik zal", "ik wil", "ik beloof", "vanaf nu", "geen meer", "dit jaar ga",
           "goed voornemen", "ik stop met"),
}  # fmt: skip
"""A plan or a promise in the owner's own words (first person)."""

UNDONE: Table = {
    "en": ("haven't", "havent", "didn't", "didnt", "never did", "stopped", "gave up", "again",
           "not since", "still haven't", "skipped", "broke", "failed", "forgot to"),
    "pt": ("nao fiz", "ainda nao", "desisti", "parei", "outra vez", "de novo", "falhei",
           "esqueci-me"),
    "es": ("no he", "todavia no", "deje de", "me rendi", "otra vez", "de nuevo", "falle",
           "se me olvido"),
    "de": ("nicht mehr", "noch nicht", "nie gemacht", "aufgegeben", "aufgehort", "schon wieder",
           "wieder", "nicht geschafft", "vergessen", "seit"),
    "fr": ("pas fait", "toujours pas", "abandonne", "arrete", "encore", "de nouveau", "rate",
           "oublie de", "depuis"),
    "it": ("non ho", "ancora non", "ho smesso", "rinunciato", "di nuovo", "ancora una volta",
           "fallito", "dimenticato di"),
    "nl": ("niet gedaan", "nog steeds niet", "opgegeven", "gestopt", "weer", "opnieuw",
           "mislukt", "vergeten te", "sinds"),
}  # fmt: skip
"""What followed a plan: it wasn't done, it stopped, or the old thing happened again."""

SUBJECTS: Table = {
    "en": ("money", "job", "work", "boss", "flat", "house", "home", "city", "family", "career",
           "rent", "debt", "drinking", "smoking", "running", "gym", "diet", "weekend*",
           "relationship", "marriage"),
    "pt": ("dinheiro", "emprego", "trabalho", "chefe", "casa", "cidade", "familia", "carreira",
           "renda", "divida", "beber", "fumar", "correr", "ginasio", "dieta", "fim de semana",
           "fins de semana", "relacao", "casamento"),
    "es": ("dinero", "trabajo", "jefe", "piso", "casa", "ciudad", "familia", "carrera",
           "alquiler", "deuda", "beber", "fumar", "correr", "gimnasio", "dieta",
           "fin de semana", "fines de semana", "relacion", "matrimonio"),
    "de": ("geld", "job", "arbeit", "chef", "chefin", "wohnung", "haus", "stadt", "familie",
           "karriere", "miete", "schulden", "trinken", "rauchen", "laufen", "joggen",
           "fitnessstudio", "diat", "wochenende*", "beziehung", "ehe"),
    "fr": ("argent", "boulot", "travail", "patron", "appartement", "maison", "ville", "famille",
           "carriere", "loyer", "dette*", "boire", "fumer", "courir", "salle de sport",
           "regime", "week-end*", "relation", "mariage"),
    "it": ("soldi", "lavoro", "capo", "appartamento", "casa", "citta", "famiglia", "carriera",
           "affitto", "debit*", "bere", "fumare", "correre", "palestra", "dieta",
           "fine settimana", "weekend", "relazione", "matrimonio"),
    "nl": ("geld", "baan", "werk", "baas", "appartement", "huis", "stad", "familie", "carriere",
           "huur", "schuld*", "drinken", "roken", "hardlopen", "sportschool", "dieet",
           "weekend*", "relatie", "huwelijk"),
}  # fmt: skip
"""The things of a life a person says opposite things about, besides names."""

LIGHT: Table = {
    "en": ("stop", "start", "quit", "keep", "try", "begin", "finally", "really", "actually",
           "every", "each", "more", "less", "properly", "again"),
    "pt": ("parar", "deixar", "comecar", "tentar", "continuar", "finalmente", "mesmo", "cada",
           "todos", "mais", "menos"),
    "es": ("dejar", "parar", "empezar", "comenzar", "intentar", "seguir", "finalmente", "cada",
           "todos", "mas", "menos"),
    "de": ("aufhoren", "anfangen", "beginnen", "versuchen", "endlich", "wirklich", "jeden",
           "jede", "jedes", "mehr", "weniger", "richtig"),
    "fr": ("arreter", "commencer", "essayer", "continuer", "enfin", "vraiment", "chaque",
           "tous", "plus", "moins"),
    "it": ("smettere", "iniziare", "cominciare", "provare", "continuare", "finalmente",
           "davvero", "ogni", "tutti", "piu", "meno"),
    "nl": ("stoppen", "beginnen", "proberen", "doorgaan", "eindelijk", "echt", "elke", "elk",
           "meer", "minder"),
}  # fmt: skip
"""Words that say how, not what, of a plan ("stop", "start", "every"): never its subject."""

LANGUAGES = ("en", "pt", "es", "de", "fr", "it", "nl")
