"""WhatsApp exports as the app writes them in other languages, by hand, after real exports
and public parsers' test files: each phone locale's date order, clock, connector, system
lines, media placeholders and file name. Everyone in them is invented."""

from __future__ import annotations

from dataclasses import dataclass

LRM = "\u200e"
NBSP = "\u00a0"
NNBSP = "\u202f"


@dataclass(frozen=True)
class Locale:
    file_name: str
    text: str
    title: str
    lines: list[str]  # the transcript after its header line and blank line


LOCALES: dict[str, Locale] = {
    "de-android": Locale(
        "WhatsApp Chat mit Familie Weber.txt",
        "12.05.23, 19:30 - Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. Niemand "
        "außerhalb dieses Chats kann sie lesen oder anhören, nicht einmal WhatsApp. Tippe, um "
        "mehr zu erfahren.\n"
        "12.05.23, 19:30 - Du hast die Gruppe „Familie Weber“ erstellt\n"
        "12.05.23, 19:31 - Mama: Hallo ihr Lieben: wann ist die Hochzeit?\n"
        "12.05.23, 19:32 - Jonas: <Medien ausgeschlossen>\n"
        "13.05.23, 08:05 - Lena: Am 3. Juni!\n"
        "Ich freue mich so\n",
        "Familie Weber",
        [
            "[2023-05-12 19:30] (system): Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. "
            "Niemand außerhalb dieses Chats kann sie lesen oder anhören, nicht einmal WhatsApp. "
            "Tippe, um mehr zu erfahren.",
            "[2023-05-12 19:30] (system): Du hast die Gruppe „Familie Weber“ erstellt",
            "[2023-05-12 19:31] Mama: Hallo ihr Lieben: wann ist die Hochzeit?",
            "[2023-05-12 19:32] Jonas: [media omitted]",
            "[2023-05-13 08:05] Lena (owner): Am 3. Juni! ⏎ Ich freue mich so",
        ],
    ),
    "de-ios": Locale(
        "WhatsApp Chat - Familie Weber.txt",
        f"[12.05.23, 19:30:01] Familie Weber: {LRM}Nachrichten und Anrufe sind "
        "Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats kann sie lesen oder "
        "anhören, nicht einmal WhatsApp.\n"
        f"[12.05.23, 19:30:01] Familie Weber: {LRM}Lena hat die Gruppe „Familie Weber“ "
        "erstellt.\n"
        f"[12.05.23, 19:30:02] Familie Weber: {LRM}Lena hat Mama hinzugefügt.\n"
        "[12.05.23, 19:31:10] Mama: Wann ist die Hochzeit?\n"
        f"{LRM}[12.05.23, 19:32:00] Mama: {LRM}Bild weggelassen\n"
        f"{LRM}[12.05.23, 19:33:00] Jonas: {LRM}<Anhang: 00000007-PHOTO-2023-05-12-19-33-00.jpg>\n"
        f"[13.05.23, 08:05:00] Lena: Am 3. Juni! {LRM}<Diese Nachricht wurde bearbeitet.>\n"
        f"{LRM}[13.05.23, 08:06:00] Jonas: {LRM}Audio weggelassen\n",
        "Familie Weber",
        [
            "[2023-05-12 19:30] (system): Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. "
            "Niemand außerhalb dieses Chats kann sie lesen oder anhören, nicht einmal WhatsApp.",
            "[2023-05-12 19:30] (system): Lena hat die Gruppe „Familie Weber“ erstellt.",
            "[2023-05-12 19:30] (system): Lena hat Mama hinzugefügt.",
            "[2023-05-12 19:31] Mama: Wann ist die Hochzeit?",
            "[2023-05-12 19:32] Mama: [image omitted]",
            "[2023-05-12 19:33] Jonas: [attachment: 00000007-PHOTO-2023-05-12-19-33-00.jpg]",
            "[2023-05-13 08:05] Lena (owner): Am 3. Juni! (edited)",
            "[2023-05-13 08:06] Jonas: [audio omitted]",
        ],
    ),
    "fr-android": Locale(
        "Discussion WhatsApp avec Camille.txt",
        "12/05/2023 à 19:30 - Les messages et les appels sont chiffrés de bout en bout. "
        "Personne en dehors de cette discussion, pas même WhatsApp, ne peut les lire ou les "
        "écouter.\n"
        "12/05/2023 à 19:32 - Camille: Tu as passé un bel été ?\n"
        "12/05/2023 à 19:33 - Camille: <Médias omis>\n"
        "13/05/2023 à 09:01 - Lena: Oui : la mer, enfin\n",
        "Camille",
        [
            "[2023-05-12 19:30] (system): Les messages et les appels sont chiffrés de bout en "
            "bout. Personne en dehors de cette discussion, pas même WhatsApp, ne peut les lire "
            "ou les écouter.",
            "[2023-05-12 19:32] Camille: Tu as passé un bel été ?",
            "[2023-05-12 19:33] Camille: [media omitted]",
            "[2023-05-13 09:01] Lena (owner): Oui : la mer, enfin",
        ],
    ),
    "es-android": Locale(
        "Chat de WhatsApp con Carmen.txt",
        f"12/5/23, 7:30{NNBSP}p.{NBSP}m. - Los mensajes y las llamadas están cifrados de "
        "extremo a extremo. Nadie fuera de este chat, ni siquiera WhatsApp, puede leerlos ni "
        "escucharlos.\n"
        f"12/5/23, 7:32{NNBSP}p.{NBSP}m. - Carmen: ¿Cuándo ensayamos para la boda?\n"
        f"13/5/23, 9:05{NNBSP}a.{NBSP}m. - Lena: El sábado en Sevilla\n"
        f"13/5/23, 12:10{NNBSP}p.{NBSP}m. - Carmen: <Multimedia omitido>\n",
        "Carmen",
        [
            "[2023-05-12 19:30] (system): Los mensajes y las llamadas están cifrados de extremo "
            "a extremo. Nadie fuera de este chat, ni siquiera WhatsApp, puede leerlos ni "
            "escucharlos.",
            "[2023-05-12 19:32] Carmen: ¿Cuándo ensayamos para la boda?",
            "[2023-05-13 09:05] Lena (owner): El sábado en Sevilla",
            "[2023-05-13 12:10] Carmen: [media omitted]",
        ],
    ),
    "es-ios": Locale(
        "Chat de WhatsApp con Carmen.txt",
        f"[12/5/23, 19:32:10] Carmen: {LRM}Los mensajes y las llamadas están cifrados de "
        "extremo a extremo.\n"
        "[12/5/23, 19:33:00] Carmen: ¿Ensayamos el sábado?\n"
        f"{LRM}[12/5/23, 19:34:00] Carmen: {LRM}imagen omitida\n"
        f"{LRM}[13/5/23, 10:00:00] Lena: {LRM}<adjunto: 00000003-AUDIO-2023-05-13-10-00-00.opus>\n",
        "Carmen",
        [
            "[2023-05-12 19:32] (system): Los mensajes y las llamadas están cifrados de extremo "
            "a extremo.",
            "[2023-05-12 19:33] Carmen: ¿Ensayamos el sábado?",
            "[2023-05-12 19:34] Carmen: [image omitted]",
            "[2023-05-13 10:00] Lena (owner): "
            "[attachment: 00000003-AUDIO-2023-05-13-10-00-00.opus]",
        ],
    ),
    "pt-android": Locale(
        "Conversa do WhatsApp com Tiago.txt",
        "12/05/2023 19:30 - As mensagens e as chamadas são protegidas com a criptografia de "
        "ponta a ponta.\n"
        "12/05/2023 19:32 - Tiago: Viajamos amanhã para o Porto!\n"
        "12/05/2023 19:33 - Tiago: <Arquivo de mídia oculto>\n"
        "14/05/2023 22:15 - Lena: Boa viagem\n",
        "Tiago",
        [
            "[2023-05-12 19:30] (system): As mensagens e as chamadas são protegidas com a "
            "criptografia de ponta a ponta.",
            "[2023-05-12 19:32] Tiago: Viajamos amanhã para o Porto!",
            "[2023-05-12 19:33] Tiago: [media omitted]",
            "[2023-05-14 22:15] Lena (owner): Boa viagem",
        ],
    ),
    "ru-android": Locale(
        "Чат WhatsApp с Олей.txt",
        "12.05.2023, 19:30 - Сообщения и звонки защищены сквозным шифрованием.\n"
        "12.05.2023, 19:32 - Оля Смирнова: Мы уже в Москве!\n"
        "12.05.2023, 19:33 - Оля Смирнова: ‹Без медиафайлов>\n"
        "13.05.2023, 07:45 - Lena: Ура! Увидимся в Москве\n",
        "Олей",
        [
            "[2023-05-12 19:30] (system): Сообщения и звонки защищены сквозным шифрованием.",
            "[2023-05-12 19:32] Оля Смирнова: Мы уже в Москве!",
            "[2023-05-12 19:33] Оля Смирнова: [media omitted]",
            "[2023-05-13 07:45] Lena (owner): Ура! Увидимся в Москве",
        ],
    ),
    "ja-ios": Locale(
        "WhatsApp Chat - 花子.txt",
        f"[2023/05/12 19:30:00] 花子: {LRM}"
        "メッセージと通話はエンドツーエンドで暗号化されています。\n"
        "[2023/05/12 19:32:10] 花子: 東京に引っ越したばかりで、まだ箱だらけ。\n"
        f"{LRM}[2023/05/12 19:33:00] 花子: {LRM}画像は含まれていません\n"
        "[2023/05/13 08:00:00] Lena: 引っ越しおめでとう！\n",
        "花子",
        [
            "[2023-05-12 19:30] (system): メッセージと通話はエンドツーエンドで暗号化されています。",
            "[2023-05-12 19:32] 花子: 東京に引っ越したばかりで、まだ箱だらけ。",
            "[2023-05-12 19:33] 花子: [image omitted]",
            "[2023-05-13 08:00] Lena (owner): 引っ越しおめでとう！",
        ],
    ),
    "ja-android-12h": Locale(
        "chat.txt",
        "2023/05/12 午後7:32 - 花子: 東京に着いた\n"
        "2023/05/13 午前8:00 - Lena: おはよう\n"
        "2023/05/13 午前8:01 - 花子: <メディアは含まれていません>\n",
        "",
        [
            "[2023-05-12 19:32] 花子: 東京に着いた",
            "[2023-05-13 08:00] Lena (owner): おはよう",
            "[2023-05-13 08:01] 花子: [media omitted]",
        ],
    ),
    "ko-android": Locale(
        "chat.txt",
        "2023. 5. 12. 오후 7:32 - 민수: 서울 도착!\n2023. 5. 13. 오전 9:05 - Lena: 좋아요\n",
        "",
        ["[2023-05-12 19:32] 민수: 서울 도착!", "[2023-05-13 09:05] Lena (owner): 좋아요"],
    ),
    "fi-android": Locale(
        "WhatsApp Chat with Aino.txt",
        "12.5.2023 klo 19.32 - Aino: Moi!\n13.5.2023 klo 7.05 - Lena: Huomenta\n",
        "Aino",
        ["[2023-05-12 19:32] Aino: Moi!", "[2023-05-13 07:05] Lena (owner): Huomenta"],
    ),
    "nl-android": Locale(
        "WhatsApp-chat met Sanne.txt",
        "12-05-2023 19:32 - Sanne: Hoi!\n13-05-2023 07:05 - Lena: <Media weggelaten>\n",
        "Sanne",
        ["[2023-05-12 19:32] Sanne: Hoi!", "[2023-05-13 07:05] Lena (owner): [media omitted]"],
    ),
}
