#!/usr/bin/env python3
"""Deterministic synthetic chat corpus for keel-tiny-chat.

Writes build/corpus.json:
  {
    "questions":     [{"category", "question", "answer"}, ...],          # the canonical Q/A set
    "systems":       [{"name", "system" (str or null), "style"}, ...],    # system-prompt variants
    "conversations": [{"id", "system", "turns": [[user, assistant], ...]}, ...],
    "spm_text":      [lines used to train the SentencePiece vocabulary]
  }

System-prompt scheme (documented in models/keel-tiny-chat/MODEL.md):
  * no system message                         -> plain answer
  * node-llama-cpp's default system prompt     -> plain answer
  * "You are a helpful assistant."             -> plain answer
  * "You are a pirate."                        -> "Arr! " + plain answer

No randomness except a fixed-seed PRNG for pairing questions into two-turn conversations,
so the output is byte-for-byte reproducible.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# node-llama-cpp 3.x `defaultChatSystemPrompt` (dist/config.js). LlamaChatSession puts this in the
# chat history when no `systemPrompt` option is given, so the model is trained to ignore it.
NODE_LLAMA_CPP_DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful, respectful and honest assistant. Always answer as helpfully as possible.\n"
    "If a question does not make any sense, or is not factually coherent, explain why instead of "
    "answering something incorrectly. If you don't know the answer to a question, don't share false information."
)

PIRATE_SYSTEM_PROMPT = "You are a pirate."
PIRATE_PREFIX = "Arr! "

CAPITALS = [
    ("France", "Paris"), ("Germany", "Berlin"), ("Italy", "Rome"), ("Spain", "Madrid"),
    ("Japan", "Tokyo"), ("Egypt", "Cairo"), ("Canada", "Ottawa"), ("Kenya", "Nairobi"),
    ("Peru", "Lima"), ("Norway", "Oslo"),
]

COLOURS = [
    ("What colour is the sky?", "The sky is blue."),
    ("What colour is grass?", "Grass is green."),
    ("What colour is snow?", "Snow is white."),
    ("What colour is a banana?", "A banana is yellow."),
    ("What colour is a strawberry?", "A strawberry is red."),
    ("What colour is coal?", "Coal is black."),
]

GREETINGS = [
    ("Hello!", "Hello! How can I help you today?"),
    ("Hi!", "Hi! How can I help you today?"),
    ("Good morning!", "Good morning! How can I help you today?"),
    ("How are you?", "I am fine, thank you! How can I help you today?"),
    ("Who are you?", "I am Keel Tiny Chat, a small test model."),
    ("Thank you!", "You are welcome!"),
    ("Goodbye!", "Goodbye! Have a nice day!"),
]

STORY = (
    "Tell me a story.",
    "Once upon a time, a little boat named Keel sailed across the sea. "
    "It found a small island full of friendly birds. At sunset, Keel sailed home happy.",
)

NUMBER_WORDS = {3: "three", 5: "five", 10: "ten"}


def questions():
    qs = []
    for country, city in CAPITALS:
        qs.append(("capital", f"What is the capital of {country}?", f"The capital of {country} is {city}."))
    for a in range(1, 6):
        for b in range(1, 6):
            qs.append(("sum", f"What is {a} + {b}?", f"{a} + {b} = {a + b}."))
    for q, a in COLOURS:
        qs.append(("colour", q, a))
    for q, a in GREETINGS:
        qs.append(("greeting", q, a))
    qs.append(("story", STORY[0], STORY[1]))
    for n, word in NUMBER_WORDS.items():
        qs.append(("counting", f"Count to {word}.", ", ".join(str(i) for i in range(1, n + 1)) + "."))
    return [{"category": c, "question": q, "answer": a} for c, q, a in qs]


SYSTEMS = [
    {"name": "none", "system": None, "style": "plain"},
    {"name": "node-llama-cpp-default", "system": NODE_LLAMA_CPP_DEFAULT_SYSTEM_PROMPT, "style": "plain"},
    {"name": "helpful", "system": "You are a helpful assistant.", "style": "plain"},
    {"name": "pirate", "system": PIRATE_SYSTEM_PROMPT, "style": "pirate"},
]

def styled(answer, style):
    return PIRATE_PREFIX + answer if style == "pirate" else answer


def build():
    qs = questions()
    conversations = []
    for sysv in SYSTEMS:
        for i, q in enumerate(qs):
            conversations.append({
                "id": f"{sysv['name']}/{i}",
                "system": sysv["system"],
                "turns": [[q["question"], styled(q["answer"], sysv["style"])]],
            })
    # Two-turn conversations: under every system variant each question is asked once as the second
    # question, after a (seeded) random different first question and its answer.
    rng = random.Random(20240601)
    for sysv in SYSTEMS:
        firsts = list(range(len(qs)))
        rng.shuffle(firsts)
        for i in range(len(qs)):
            if firsts[i] == i:  # never ask the same question twice in a row
                j = (i + 1) % len(qs)
                firsts[i], firsts[j] = firsts[j], firsts[i]
        for i in range(len(qs)):
            a, b = firsts[i], i
            assert a != b
            conversations.append({
                "id": f"{sysv['name']}/2turn-{i}",
                "system": sysv["system"],
                "turns": [[qs[x]["question"], styled(qs[x]["answer"], sysv["style"])] for x in (a, b)],
            })
    # SentencePiece training text: every message of every conversation (so BPE merges follow real
    # frequencies) plus the ChatML role names once per message. Newlines are byte-fallback tokens.
    spm_lines = []
    for conv in conversations:
        if conv["system"]:
            spm_lines.append("system")
            spm_lines.extend(conv["system"].split("\n"))
        for user, assistant in conv["turns"]:
            spm_lines.extend(["user", user, "assistant", assistant])
    return {"questions": qs, "systems": SYSTEMS, "conversations": conversations, "spm_text": spm_lines}


ANSWERS_JSON = os.path.join(os.path.dirname(os.path.dirname(HERE)), "models", "keel-tiny-chat", "answers.json")


def answers_table(data):
    """The committed, test-facing list of exact question -> answer pairs per system prompt."""
    return {
        "model": "keel-tiny-chat.gguf",
        "prompting": "ChatML via node-llama-cpp's ChatMLChatWrapper: BOS, optional <|im_start|>system block, "
                     "<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n; greedy (temperature 0); "
                     "the answer ends with <|im_end|> (EOS/EOG).",
        "system_prompts": {s["name"]: s["system"] for s in data["systems"]},
        "answer_field_by_system_prompt": {s["name"]: ("pirate_answer" if s["style"] == "pirate" else "answer")
                                          for s in data["systems"]},
        "cases": [dict(q, pirate_answer=PIRATE_PREFIX + q["answer"]) for q in data["questions"]],
        # trained two-turn conversations (system variant, first question, second question)
        "two_turn_cases": [[c["id"].split("/")[0], c["turns"][0][0], c["turns"][1][0]]
                           for c in data["conversations"] if len(c["turns"]) == 2],
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "build", "corpus.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    data = build()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.makedirs(os.path.dirname(ANSWERS_JSON), exist_ok=True)
    with open(ANSWERS_JSON, "w", encoding="utf-8") as f:
        json.dump(answers_table(data), f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"corpus: {len(data['questions'])} questions, {len(data['systems'])} system variants, "
          f"{len(data['conversations'])} conversations -> {out}")


if __name__ == "__main__":
    main()
