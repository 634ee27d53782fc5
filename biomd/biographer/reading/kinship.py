"""Who a person is to the owner, as the owner's own words say it: the words for kin, partners,
friends, work and pets, and the possessives before them, by language (English, German,
Spanish, French, Portuguese), with each relation's label in bio.md's language. Data only;
people.py reads text with it."""

from __future__ import annotations

from functools import cache

from biomd.fold import fold

RELATIONS: dict[str, dict[str, str]] = {
    "mother": {
        "en": "mum mom mother mama mam mummy", "de": "mama mutter mutti",
        "es": "mamá madre mami", "fr": "maman mère", "pt": "mãe mamãe mamã",
    },
    "father": {
        "en": "dad father papa daddy", "de": "papa vater vati",
        "es": "papá padre", "fr": "papa père", "pt": "pai papai",
    },
    "sister": {
        "en": "sister sis", "de": "schwester", "es": "hermana", "fr": "sœur soeur",
        "pt": "irmã",
    },
    "brother": {
        "en": "brother", "de": "bruder", "es": "hermano", "fr": "frère", "pt": "irmão",
    },
    "partner": {
        "en": "partner girlfriend boyfriend fiancé fiancée",
        "de": "partner partnerin verlobte verlobter lebensgefährte lebensgefährtin",
        "es": "pareja novia novio prometida prometido",
        "fr": "partenaire copine copain compagne compagnon fiancée fiancé",
        "pt": "namorada namorado companheira companheiro parceira parceiro noiva noivo",
    },
    "wife": {"en": "wife", "de": "frau ehefrau", "es": "esposa mujer", "fr": "femme épouse",
             "pt": "esposa mulher"},
    "husband": {"en": "husband", "de": "mann ehemann", "es": "esposo marido",
                "fr": "mari époux", "pt": "marido esposo"},
    "daughter": {"en": "daughter", "de": "tochter", "es": "hija", "fr": "fille", "pt": "filha"},
    "son": {"en": "son", "de": "sohn", "es": "hijo", "fr": "fils", "pt": "filho"},
    "grandmother": {"en": "grandmother grandma granny nan nana", "de": "oma großmutter",
                    "es": "abuela", "fr": "grand-mère mamie", "pt": "avó"},
    "grandfather": {"en": "grandfather grandad grandpa", "de": "opa großvater",
                    "es": "abuelo", "fr": "grand-père papi", "pt": "avô"},
    "aunt": {"en": "aunt auntie", "de": "tante", "es": "tía", "fr": "tante", "pt": "tia"},
    "uncle": {"en": "uncle", "de": "onkel", "es": "tío", "fr": "oncle", "pt": "tio"},
    "cousin": {"en": "cousin", "de": "cousin cousine", "es": "primo prima",
               "fr": "cousin cousine", "pt": "primo prima"},
    "niece": {"en": "niece", "de": "nichte", "es": "sobrina", "fr": "nièce", "pt": "sobrinha"},
    "nephew": {"en": "nephew", "de": "neffe", "es": "sobrino", "fr": "neveu", "pt": "sobrinho"},
    "brother-in-law": {"en": "brother-in-law", "de": "schwager", "es": "cuñado",
                       "fr": "beau-frère", "pt": "cunhado"},
    "sister-in-law": {"en": "sister-in-law", "de": "schwägerin", "es": "cuñada",
                      "fr": "belle-sœur", "pt": "cunhada"},
    "best friend": {"en": "best friend", "de": "beste freundin bester freund",
                    "es": "mejor amiga mejor amigo", "fr": "meilleure amie meilleur ami",
                    "pt": "melhor amiga melhor amigo"},
    "friend": {"en": "friend mate", "de": "freundin freund", "es": "amiga amigo",
               "fr": "amie ami", "pt": "amiga amigo"},
    "boss": {"en": "boss manager", "de": "chefin chef vorgesetzte vorgesetzter",
             "es": "jefa jefe", "fr": "patronne patron cheffe", "pt": "chefe"},
    "colleague": {"en": "colleague coworker", "de": "kollegin kollege",
                  "es": "colega compañera compañero", "fr": "collègue", "pt": "colega"},
    "flatmate": {"en": "flatmate roommate housemate", "de": "mitbewohnerin mitbewohner",
                 "es": "compañera de piso compañero de piso", "fr": "colocataire coloc",
                 "pt": "colega de casa"},
    "neighbour": {"en": "neighbour neighbor", "de": "nachbarin nachbar",
                  "es": "vecina vecino", "fr": "voisine voisin", "pt": "vizinha vizinho"},
    "teacher": {"en": "teacher tutor", "de": "lehrerin lehrer", "es": "profesora profesor",
                "fr": "professeure professeur prof", "pt": "professora professor"},
    "dog": {"en": "dog", "de": "hund", "es": "perro perra", "fr": "chien chienne",
            "pt": "cão cachorro cadela"},
    "cat": {"en": "cat", "de": "katze kater", "es": "gato gata", "fr": "chat chatte",
            "pt": "gato gata"},
}  # fmt: skip
"""Each relation's words by language; a word of several words ("best friend") is matched as
a phrase, and the longest phrase wins."""

LABELS: dict[str, dict[str, str]] = {
    "en": {},  # the relation's own name
    "de": {
        "mother": "Mutter", "father": "Vater", "sister": "Schwester", "brother": "Bruder",
        "partner": "Partner", "wife": "Frau", "husband": "Mann", "daughter": "Tochter",
        "son": "Sohn", "grandmother": "Großmutter", "grandfather": "Großvater",
        "aunt": "Tante", "uncle": "Onkel", "cousin": "Cousin", "niece": "Nichte",
        "nephew": "Neffe", "brother-in-law": "Schwager", "sister-in-law": "Schwägerin",
        "best friend": "beste Freundin", "friend": "Freund", "boss": "Chef",
        "colleague": "Kollege", "flatmate": "Mitbewohner", "neighbour": "Nachbar",
        "teacher": "Lehrer", "dog": "Hund", "cat": "Katze",
    },
    "es": {
        "mother": "madre", "father": "padre", "sister": "hermana", "brother": "hermano",
        "partner": "pareja", "wife": "esposa", "husband": "marido", "daughter": "hija",
        "son": "hijo", "grandmother": "abuela", "grandfather": "abuelo", "aunt": "tía",
        "uncle": "tío", "cousin": "primo", "niece": "sobrina", "nephew": "sobrino",
        "brother-in-law": "cuñado", "sister-in-law": "cuñada", "best friend": "mejor amigo",
        "friend": "amigo", "boss": "jefe", "colleague": "colega", "flatmate": "compañero de piso",
        "neighbour": "vecino", "teacher": "profesor", "dog": "perro", "cat": "gato",
    },
    "fr": {
        "mother": "mère", "father": "père", "sister": "sœur", "brother": "frère",
        "partner": "partenaire", "wife": "femme", "husband": "mari", "daughter": "fille",
        "son": "fils", "grandmother": "grand-mère", "grandfather": "grand-père",
        "aunt": "tante", "uncle": "oncle", "cousin": "cousin", "niece": "nièce",
        "nephew": "neveu", "brother-in-law": "beau-frère", "sister-in-law": "belle-sœur",
        "best friend": "meilleur ami", "friend": "ami", "boss": "patron",
        "colleague": "collègue", "flatmate": "colocataire", "neighbour": "voisin",
        "teacher": "professeur", "dog": "chien", "cat": "chat",
    },
    "pt": {
        "mother": "mãe", "father": "pai", "sister": "irmã", "brother": "irmão",
        "partner": "companheiro", "wife": "esposa", "husband": "marido", "daughter": "filha",
        "son": "filho", "grandmother": "avó", "grandfather": "avô", "aunt": "tia",
        "uncle": "tio", "cousin": "primo", "niece": "sobrinha", "nephew": "sobrinho",
        "brother-in-law": "cunhado", "sister-in-law": "cunhada", "best friend": "melhor amigo",
        "friend": "amigo", "boss": "chefe", "colleague": "colega", "flatmate": "colega de casa",
        "neighbour": "vizinho", "teacher": "professor", "dog": "cão", "cat": "gato",
    },
}  # fmt: skip
"""A relation's name in bio.md's language (English: the key itself)."""

POSSESSIVES = {
    "en": "my our",
    "de": "mein meine meinem meinen meiner meines unser unsere unserem unseren unserer",
    "es": "mi mis nuestra nuestro",
    "fr": "mon ma mes notre nos",
    "pt": "meu minha meus minhas nosso nossa",
}
"""The owner's possessives: "my sister Miriam", "meine Schwester Miriam", "minha irmã Ana"."""

LIVES_IN = {
    "en": r"lives in|lived in|is living in|moved to|(?:greetings|love|hello|christmas) from"
    r"|here in",
    "de": r"wohnt(?: \w+)? in|lebt(?: \w+)? in|zog nach|ist nach|grüße aus|weihnachten aus"
    r"|hier in",
    "es": r"vive en|vivía en|se mudó a|saludos desde|aquí en",
    "fr": r"habite à|habite en|vit à|vit en|a déménagé à|bisous de|ici à",
    "pt": r"mora em|mora no|mora na|vive em|mudou-se para|beijos de|aqui em",
}
"""Words that say where someone lives, before a capitalised place."""
TOGETHER = {
    "en": r"(?P<a>{name}) and I (?:have been|are|got) together"
    r"|(?P<b>{name}) (?:is moving|moved|moves|is moving) in with me",
    "de": r"(?P<a>{name}) und ich sind (?:seit \w+ )?zusammen"
    r"|(?P<b>{name}) zieht (?:[\w.]+ ){{0,3}}bei mir ein",
    "es": r"(?P<a>{name}) y yo (?:estamos|llevamos) (?:\w+ )?juntos"
    r"|(?P<b>{name}) se (?:muda|mudó|va a mudar) conmigo",
    "fr": r"(?P<a>{name}) et moi sommes ensemble|(?P<b>{name}) (?:emménage|a emménagé) avec moi",
    "pt": r"(?P<a>{name}) e eu estamos juntos|(?P<b>{name}) (?:vem morar|veio morar) comigo",
}
"""A partner by "X and I have been together", or "X is moving in with me"."""
TITLES = frozenset(
    "mr mrs ms miss dr prof frau herr sr sra señor señora don doña m mme mlle monsieur "
    "madame sra sr dona".split()
)
"""Words before a surname that are not a name: "Frau Roth" is Roth."""


@cache
def words() -> dict[str, str]:
    """Every relation word (folded by the caller) and its relation, longest first."""
    out: dict[str, str] = {}
    for relation, by_language in RELATIONS.items():
        for said in by_language.values():
            for w in _phrases(said):
                out.setdefault(w, relation)
    return dict(sorted(out.items(), key=lambda kv: -len(kv[0])))


@cache
def by_fold() -> dict[str, str]:
    """Every relation word folded (biomd.fold: "sœur" as "soeur"), and its relation."""
    return {fold(w): relation for w, relation in words().items()}


def _phrases(said: str) -> list[str]:
    """The words of a table cell, with "best friend", "beste freundin", "compañera de piso"
    kept whole."""
    parts = said.split()
    out, i = [], 0
    while i < len(parts):
        for n in (3, 2):
            joined = " ".join(parts[i : i + n])
            if n <= len(parts) - i and joined in _MULTI:
                out.append(joined)
                i += n
                break
        else:
            out.append(parts[i])
            i += 1
    return out


_MULTI = frozenset(
    {
        "best friend", "beste freundin", "bester freund", "mejor amiga", "mejor amigo",
        "meilleure amie", "meilleur ami", "melhor amiga", "melhor amigo",
        "compañera de piso", "compañero de piso", "colega de casa",
    }
)  # fmt: skip


def label(relation: str, language: str) -> str:
    """A relation's name in bio.md's language."""
    return LABELS.get(language, {}).get(relation, relation)
