/* lex.c - the tokenizer: Python's lexical rules over a whole source file (see ast.h).
 *
 * One pass over the text, constant work per character, tokens appended to an arena
 * array. Indentation is measured at the start of every logical line outside brackets
 * (tab = next multiple of 8, form feed resets); blank and comment-only lines produce no
 * tokens. f-strings are scanned with Python 3.12's nesting rules (PEP 701), which every
 * older f-string also satisfies; their value is the raw text between the quotes.
 * Rejected literals - ints beyond int64, 1j, 0777, \N{...}, NUL in a string - are not
 * fatal here: the token carries an error text that the parser reports, so one such
 * literal spoils one statement only. Everything else that is wrong
 * (bad character, unterminated string, inconsistent dedent, unbalanced brackets) is a
 * fatal ctx_fail at the exact location. */
#include <stdlib.h>
#include <string.h>

#include "frontend/ast.h"

enum { LEX_MAX_NEST = 200 }; /* bracket nesting limit, as CPython's tokenizer */

typedef struct Lexer {
    Ctx *ctx;
    const Source *src;
    const char *p, *end, *line_start;
    int line;
    Vec(int) indents;        /* columns of the open indentation levels; [0] == 0 */
    char open[LEX_MAX_NEST]; /* open brackets and where they opened */
    Loc open_loc[LEX_MAX_NEST];
    int nopen;
    Vec(Token) toks;
} Lexer;

static const char *const lex_keywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield",
};

/* Longest first, so the first prefix match is the longest operator. */
static const char *const lex_ops[] = {
    "**=", "//=", ">>=", "<<=", "...", "**", "//", ">>", "<<", "<=", ">=", "==",
    "!=",  "->",  ":=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+",   "-",   "*",   "/",   "%",   "@",  "&",  "|",  "^",  "~",  "<",  ">",
    "(",   ")",   "[",   "]",   "{",   "}",  ",",  ":",  ".",  ";",  "=",
};

/* Character at p + k, or -1 at or past the end of the text. */
static int lex_at(const Lexer *L, size_t k) {
    return (size_t)(L->end - L->p) > k ? (unsigned char)L->p[k] : -1;
}

static Loc lex_loc_of(const Lexer *L, const char *at) {
    return (Loc){L->src, L->line, (int)(at - L->line_start) + 1};
}

static Loc lex_here(const Lexer *L) { return lex_loc_of(L, L->p); }

static bool lex_is_ident_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool lex_is_ident_char(int c) { return lex_is_ident_start(c) || (c >= '0' && c <= '9'); }

static Token *lex_push(Lexer *L, TokKind kind, Loc loc, const char *text) {
    Token t = {.kind = kind, .loc = loc, .text = text};
    VEC_PUSH(&L->ctx->arena, L->toks, t);
    return &L->toks.data[L->toks.len - 1];
}

/* Consume one line break (\n, \r\n or \r) at p and start a new line. */
static void lex_newline(Lexer *L) {
    if (*L->p == '\r' && lex_at(L, 1) == '\n') L->p++;
    L->p++;
    L->line++;
    L->line_start = L->p;
}

/* ---- indentation ------------------------------------------------------------------ */

/* At the start of a physical line outside brackets: skip a blank or comment-only line
 * (returns false), or measure the indentation and emit INDENT/DEDENTs (returns true). */
static bool lex_indentation(Lexer *L) {
    int col = 0;
    for (;; L->p++) {
        int c = lex_at(L, 0);
        if (c == ' ') col++;
        else if (c == '\t') col = (col / 8 + 1) * 8;
        else if (c == '\f') col = 0;
        else break;
    }
    int c = lex_at(L, 0);
    if (c == '#')
        while (lex_at(L, 0) != -1 && lex_at(L, 0) != '\n' && lex_at(L, 0) != '\r') L->p++;
    c = lex_at(L, 0);
    if (c == '\n' || c == '\r') {
        lex_newline(L);
        return false;
    }
    if (c == -1) return true; /* end of file: no indentation change */
    Loc loc = lex_here(L);
    int top = L->indents.data[L->indents.len - 1];
    if (col > top) {
        VEC_PUSH(&L->ctx->arena, L->indents, col);
        lex_push(L, TOK_INDENT, loc, "<indent>");
        return true;
    }
    while (col < L->indents.data[L->indents.len - 1]) {
        L->indents.len--;
        lex_push(L, TOK_DEDENT, loc, "<dedent>");
    }
    if (col != L->indents.data[L->indents.len - 1])
        ctx_fail(L->ctx, loc, "unindent does not match any outer indentation level");
    return true;
}

/* ---- numbers ---------------------------------------------------------------------- */

static int lex_digit_value(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

/* Skip digits of `base` with single underscores between them; returns how many digits. */
static int lex_digits(Lexer *L, int base, bool leading_underscore_ok) {
    int n = 0;
    for (;;) {
        int c = lex_at(L, 0);
        if (c == '_' && (n > 0 || leading_underscore_ok) && lex_at(L, 1) != -1 &&
            lex_digit_value(lex_at(L, 1)) < base) {
            L->p++;
            continue;
        }
        if (c == -1 || lex_digit_value(c) >= base) return n;
        L->p++;
        n++;
    }
}

/* Value of the digits in [s, e) (underscores skipped); false on int64 overflow. */
static bool lex_int_value(const char *s, const char *e, int base, int64_t *out) {
    uint64_t v = 0;
    for (; s < e; s++) {
        if (*s == '_') continue;
        uint64_t d = (uint64_t)lex_digit_value((unsigned char)*s);
        if (v > ((uint64_t)INT64_MAX - d) / (uint64_t)base) return false;
        v = v * (uint64_t)base + d;
    }
    *out = (int64_t)v;
    return true;
}

static void lex_prefixed_int(Lexer *L, Token *t, const char *s) {
    int c = lex_at(L, 1) | 0x20, base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
    const char *name = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    L->p += 2;
    const char *digits = L->p;
    if (lex_digits(L, base, true) == 0)
        t->error = arena_printf(&L->ctx->arena, "invalid %s literal", name);
    else if (!lex_int_value(digits, L->p, base, &t->ival))
        t->error = "integer literal is too large (tilec integers are 64-bit)";
    t->text = arena_strndup(&L->ctx->arena, s, (size_t)(L->p - s));
}

static void lex_float_value(Lexer *L, Token *t, const char *s) {
    char *buf = arena_alloc(&L->ctx->arena, (size_t)(L->p - s) + 1), *o = buf;
    for (const char *q = s; q < L->p; q++)
        if (*q != '_') *o++ = *q;
    *o = 0;
    t->fval = strtod(buf, NULL);
}

static void lex_number(Lexer *L) {
    const char *s = L->p;
    Token *t = lex_push(L, TOK_INT, lex_here(L), NULL);
    int c1 = lex_at(L, 1) | 0x20;
    if (*s == '0' && (c1 == 'x' || c1 == 'o' || c1 == 'b')) {
        lex_prefixed_int(L, t, s);
        return;
    }
    int nint = lex_digits(L, 10, false);
    if (lex_at(L, 0) == '.') {
        L->p++;
        lex_digits(L, 10, false);
        t->kind = TOK_FLOAT;
    }
    int e = lex_at(L, 0), sign = lex_at(L, 1);
    int first = (sign == '+' || sign == '-') ? lex_at(L, 2) : sign;
    if ((e == 'e' || e == 'E') && first >= '0' && first <= '9') {
        L->p += (sign == '+' || sign == '-') ? 2 : 1;
        lex_digits(L, 10, false);
        t->kind = TOK_FLOAT;
    }
    if (lex_at(L, 0) == 'j' || lex_at(L, 0) == 'J') {
        L->p++;
        t->error = "complex (imaginary) literals are not supported";
    }
    t->text = arena_strndup(&L->ctx->arena, s, (size_t)(L->p - s));
    if (t->kind == TOK_FLOAT) {
        lex_float_value(L, t, s);
    } else if (!lex_int_value(s, s + strlen(t->text), 10, &t->ival)) {
        if (!t->error) t->error = "integer literal is too large (tilec integers are 64-bit)";
    } else if (*s == '0' && t->ival != 0 && nint > 1 && !t->error) {
        t->error = "leading zeros in decimal integer literals are not permitted; "
                   "use an 0o prefix for octal integers";
    }
}

/* ---- strings ---------------------------------------------------------------------- */

/* Location of `at` inside a token that started at loc/start (the token may span lines). */
static Loc lex_loc_within(Loc loc, const char *start, const char *at) {
    const char *ls = start - (loc.col - 1);
    for (const char *q = start; q < at; q++) {
        if (*q == '\n' || (*q == '\r' && q[1] != '\n')) {
            loc.line++;
            ls = q + 1;
        }
    }
    loc.col = (int)(at - ls) + 1;
    return loc;
}

static int lex_utf8(char *o, uint32_t v) {
    if (v < 0x80) {
        o[0] = (char)v;
        return 1;
    }
    if (v < 0x800) {
        o[0] = (char)(0xC0 | (v >> 6));
        o[1] = (char)(0x80 | (v & 0x3F));
        return 2;
    }
    if (v < 0x10000) {
        o[0] = (char)(0xE0 | (v >> 12));
        o[1] = (char)(0x80 | ((v >> 6) & 0x3F));
        o[2] = (char)(0x80 | (v & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (v >> 18));
    o[1] = (char)(0x80 | ((v >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((v >> 6) & 0x3F));
    o[3] = (char)(0x80 | (v & 0x3F));
    return 4;
}

typedef struct StrLit {
    Loc loc;                /* the token (prefix included) */
    const char *tok_start;  /* first character of the token */
    const char *body, *end; /* between the quotes */
    bool bytes;
    const char *error; /* set for what the parser must reject (\N{...}, NUL) */
} StrLit;

/* Decode the \x / \u / \U escape at q (q points at the letter); returns chars consumed. */
static int lex_hex_escape(Lexer *L, const StrLit *s, const char *q, uint32_t *v) {
    int n = *q == 'x' ? 2 : *q == 'u' ? 4 : 8;
    *v = 0;
    for (int i = 1; i <= n; i++) {
        int d = q + i < s->end ? lex_digit_value((unsigned char)q[i]) : 99;
        if (d >= 16)
            ctx_fail(L->ctx, lex_loc_within(s->loc, s->tok_start, q - 1),
                     "truncated \\%c escape in string literal (needs %d hex digits)", *q, n);
        *v = *v * 16 + (uint32_t)d;
    }
    if (*v > 0x10FFFF)
        ctx_fail(L->ctx, lex_loc_within(s->loc, s->tok_start, q - 1),
                 "illegal Unicode character in string literal");
    return n + 1;
}

/* Decode the escape sequence after the backslash at q[-1]; returns chars consumed. */
static int lex_escape(Lexer *L, StrLit *s, const char *q, char *o, int *olen) {
    static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    *olen = 0;
    if (*q == '\n') return 1;
    if (*q == '\r') return q + 1 < s->end && q[1] == '\n' ? 2 : 1;
    for (int i = 0; simple[i]; i += 2)
        if (*q == simple[i]) {
            o[(*olen)++] = simple[i + 1];
            return 1;
        }
    uint32_t v = 0;
    int used;
    if (*q >= '0' && *q <= '7') {
        for (used = 0; used < 3 && q + used < s->end && q[used] >= '0' && q[used] <= '7'; used++)
            v = v * 8 + (uint32_t)(q[used] - '0');
    } else if (*q == 'x' || (!s->bytes && (*q == 'u' || *q == 'U'))) {
        used = lex_hex_escape(L, s, q, &v);
    } else { /* unknown escapes stay as written; \N{name} needs Unicode's name table */
        if (*q == 'N' && !s->bytes) s->error = "named Unicode escapes (\\N{...}) are not supported";
        o[(*olen)++] = '\\';
        return 0;
    }
    if (s->bytes) o[(*olen)++] = (char)(v & 0xFF);
    else *olen = lex_utf8(o, v);
    return used;
}

/* The value of a string body: escapes decoded unless raw, line breaks normalised to \n. */
static char *lex_string_value(Lexer *L, StrLit *s, bool decode) {
    char *out = arena_alloc(&L->ctx->arena, (size_t)(s->end - s->body) + 1);
    size_t n = 0;
    for (const char *q = s->body; q < s->end;) {
        if (*q == '\r') {
            out[n++] = '\n';
            q += q + 1 < s->end && q[1] == '\n' ? 2 : 1;
        } else if (*q == '\\' && decode) {
            int olen;
            q += 1 + lex_escape(L, s, q + 1, out + n, &olen);
            n += (size_t)olen;
        } else {
            out[n++] = *q++;
        }
    }
    if (strlen(out) != n) s->error = "strings containing NUL characters are not supported";
    out[n] = 0;
    return out;
}

/* Is [s, s+n) followed by a quote a valid string prefix (r u b f br rb fr rf, any case)? */
static bool lex_is_prefix(const char *s, size_t n) {
    if (n == 0 || n > 2) return false;
    char a = (char)(s[0] | 0x20), b = n == 2 ? (char)(s[1] | 0x20) : 0;
    if (n == 1) return a == 'r' || a == 'u' || a == 'b' || a == 'f';
    return (a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f'));
}

static bool lex_at_quote(const Lexer *L, int quote, bool triple) {
    return lex_at(L, 0) == quote && (!triple || (lex_at(L, 1) == quote && lex_at(L, 2) == quote));
}

static _Noreturn void lex_unterminated(Lexer *L, Loc loc, bool triple) {
    ctx_fail(L->ctx, loc,
             triple ? "unterminated triple-quoted string literal" : "unterminated string literal");
}

/* Step over one character of a string body. A backslash takes the next character with it
 * (so it cannot end the string, and backslash-newline continues any string); a bare line
 * break is allowed only where `multiline`. */
static void lex_string_char(Lexer *L, Loc loc, bool triple, bool multiline) {
    int c = lex_at(L, 0);
    bool escaped = c == '\\' && lex_at(L, 1) != -1;
    if (escaped) {
        L->p++;
        c = lex_at(L, 0);
    }
    if (c == -1 || ((c == '\n' || c == '\r') && !multiline && !escaped))
        lex_unterminated(L, loc, triple);
    if (c == '\n' || c == '\r') lex_newline(L);
    else L->p++;
}

/* Past the opening quote of a plain string: up to (not over) the closing quote. */
static void lex_plain_body(Lexer *L, Loc loc, int quote, bool triple) {
    while (!lex_at_quote(L, quote, triple)) lex_string_char(L, loc, triple, triple);
}

/* The string prefix before the quote at p, inside an f-string expression that starts at
 * lo: true for an f-string, with *raw set for rf/fr. */
static bool lex_nested_fstring(const Lexer *L, const char *lo, bool *raw) {
    const char *s = L->p;
    while (s > lo && s > L->p - 2 && lex_is_ident_start((unsigned char)s[-1]) &&
           (unsigned char)s[-1] < 0x80)
        s--;
    if ((s > lo && lex_is_ident_char((unsigned char)s[-1])) || !lex_is_prefix(s, L->p - s))
        return false;
    *raw = (s[0] | 0x20) == 'r' || (L->p - s == 2 && (s[1] | 0x20) == 'r');
    return (s[0] | 0x20) == 'f' || (L->p - s == 2 && (s[1] | 0x20) == 'f');
}

enum { FS_LITERAL, FS_EXPR, FS_SPEC, FS_MAX_NEST = 64 };

/* One level of an f-string being scanned: its literal text, a replacement field's
 * expression, or a field's format spec (quote/triple/raw: of the f-string it is in). */
typedef struct FPart {
    int kind, quote, brackets;
    bool triple, raw;
} FPart;

static void lex_fpush(Lexer *L, Loc loc, FPart *st, int *n, FPart part) {
    if (*n == FS_MAX_NEST) ctx_fail(L->ctx, loc, "f-string nested too deeply");
    st[(*n)++] = part;
}

/* Literal text of an f-string or a format spec at p. */
static void lex_fliteral(Lexer *L, Loc loc, FPart *st, int *n) {
    FPart *f = &st[*n - 1];
    int c = lex_at(L, 0), c1 = lex_at(L, 1);
    if (lex_at_quote(L, f->quote, f->triple)) {
        if (f->kind == FS_SPEC) { /* malformed field: the quote ends the f-string */
            (*n)--;
            return;
        }
        if (--*n) L->p += f->triple ? 3 : 1; /* a nested f-string ends */
    } else if (c == '{' && c1 == '{' && f->kind == FS_LITERAL) {
        L->p += 2;
    } else if (c == '{') {
        L->p++;
        lex_fpush(L, loc, st, n, (FPart){FS_EXPR, f->quote, 0, f->triple, f->raw});
    } else if (c == '}') {
        L->p += f->kind == FS_SPEC ? 1 : c1 == '}' ? 2 : 1;
        if (f->kind == FS_SPEC) (*n)--; /* the replacement field ends */
    } else if (c == '\\' && (c1 == '{' || c1 == '}')) {
        L->p++; /* not an escape of the brace */
    } else if (c == '\\' && c1 == 'N' && lex_at(L, 2) == '{' && !f->raw) {
        L->p += 3;
        while (lex_at(L, 0) != '}' && !lex_at_quote(L, f->quote, f->triple))
            lex_string_char(L, loc, f->triple, f->triple);
    } else {
        lex_string_char(L, loc, f->triple, f->triple);
    }
}

/* Expression text of a replacement field at p: strings (with any quotes) and nested
 * f-strings are skipped, brackets counted; '}' ends the field and ':' starts its spec. */
static void lex_fexpr(Lexer *L, Loc loc, FPart *st, int *n, const char *lo) {
    FPart *f = &st[*n - 1];
    int c = lex_at(L, 0);
    if (c == '\'' || c == '"') {
        bool raw = false, triple = lex_at(L, 1) == c && lex_at(L, 2) == c;
        bool fstr = lex_nested_fstring(L, lo, &raw);
        L->p += triple ? 3 : 1;
        if (fstr) {
            lex_fpush(L, loc, st, n, (FPart){FS_LITERAL, c, 0, triple, raw});
            return;
        }
        lex_plain_body(L, loc, c, triple);
        L->p += triple ? 3 : 1;
    } else if (c == '(' || c == '[' || c == '{') {
        f->brackets++;
        L->p++;
    } else if ((c == ')' || c == ']' || c == '}') && f->brackets > 0) {
        f->brackets--;
        L->p++;
    } else if (c == '}') {
        L->p++;
        (*n)--;
    } else if (c == ':' && f->brackets == 0) {
        f->kind = FS_SPEC;
        L->p++;
    } else if (c == '#') { /* a comment (3.12), quotes in it included */
        while (lex_at(L, 0) != -1 && lex_at(L, 0) != '\n' && lex_at(L, 0) != '\r') L->p++;
    } else {
        lex_string_char(L, loc, f->triple, true);
    }
}

/* Past the opening quote of an f-string: up to (not over) its closing quote. Nesting as in
 * Python 3.12 (PEP 701), which also covers every older f-string; an explicit stack. */
static void lex_fstring_body(Lexer *L, Loc loc, int quote, bool triple, bool raw) {
    FPart st[FS_MAX_NEST];
    int n = 1;
    const char *lo = L->p;
    st[0] = (FPart){FS_LITERAL, quote, 0, triple, raw};
    while (n > 0) {
        if (lex_at(L, 0) == -1) lex_unterminated(L, loc, triple);
        if (st[n - 1].kind == FS_EXPR) lex_fexpr(L, loc, st, &n, lo);
        else lex_fliteral(L, loc, st, &n);
    }
}

/* p is at the opening quote; the prefix is [tok_start, p). */
static void lex_string(Lexer *L, const char *tok_start, Loc loc) {
    bool raw = false, fstr = false, bytes = false;
    for (const char *q = tok_start; q < L->p; q++) {
        raw |= (*q | 0x20) == 'r';
        fstr |= (*q | 0x20) == 'f';
        bytes |= (*q | 0x20) == 'b';
    }
    char quote = *L->p;
    bool triple = lex_at(L, 1) == quote && lex_at(L, 2) == quote;
    L->p += triple ? 3 : 1;
    StrLit s = {.loc = loc, .tok_start = tok_start, .body = L->p, .bytes = bytes};
    if (fstr) lex_fstring_body(L, loc, quote, triple, raw);
    else lex_plain_body(L, loc, quote, triple);
    s.end = L->p;
    L->p += triple ? 3 : 1;
    Token *t = lex_push(L, TOK_STRING, loc, NULL);
    t->fstring = fstr;
    t->text = lex_string_value(L, &s, !raw && !fstr);
    t->error = s.error;
}

/* ---- names, operators, brackets ----------------------------------------------------- */

static void lex_name(Lexer *L) {
    const char *s = L->p;
    Loc loc = lex_here(L);
    while (lex_is_ident_char(lex_at(L, 0))) L->p++;
    size_t n = (size_t)(L->p - s);
    if ((lex_at(L, 0) == '\'' || lex_at(L, 0) == '"') && lex_is_prefix(s, n)) {
        lex_string(L, s, loc);
        return;
    }
    for (size_t i = 0; i < sizeof lex_keywords / sizeof *lex_keywords; i++)
        if (strlen(lex_keywords[i]) == n && !memcmp(lex_keywords[i], s, n)) {
            lex_push(L, TOK_KEYWORD, loc, lex_keywords[i]);
            return;
        }
    lex_push(L, TOK_NAME, loc, arena_strndup(&L->ctx->arena, s, n));
}

static void lex_bracket(Lexer *L, char c, Loc loc) {
    if (c == '(' || c == '[' || c == '{') {
        if (L->nopen == LEX_MAX_NEST)
            ctx_fail(L->ctx, loc, "too many nested parentheses (limit %d)", LEX_MAX_NEST);
        L->open_loc[L->nopen] = loc;
        L->open[L->nopen++] = c;
        return;
    }
    if (c != ')' && c != ']' && c != '}') return;
    if (L->nopen == 0) ctx_fail(L->ctx, loc, "unmatched '%c'", c);
    char o = L->open[--L->nopen];
    if ((o == '(' && c != ')') || (o == '[' && c != ']') || (o == '{' && c != '}'))
        ctx_fail(L->ctx, loc,
                 "closing parenthesis '%c' does not match opening parenthesis '%c'"
                 " on line %d",
                 c, o, L->open_loc[L->nopen].line);
}

static void lex_operator(Lexer *L) {
    Loc loc = lex_here(L);
    size_t left = (size_t)(L->end - L->p);
    for (size_t i = 0; i < sizeof lex_ops / sizeof *lex_ops; i++) {
        size_t n = strlen(lex_ops[i]);
        if (n <= left && !memcmp(lex_ops[i], L->p, n)) {
            L->p += n;
            lex_push(L, TOK_OP, loc, lex_ops[i]);
            if (n == 1) lex_bracket(L, lex_ops[i][0], loc);
            return;
        }
    }
    int c = lex_at(L, 0);
    if (c >= 0x21 && c < 0x7F) ctx_fail(L->ctx, loc, "invalid character '%c' in program", c);
    ctx_fail(L->ctx, loc, "invalid character (byte 0x%02x) in program", c);
}

static void lex_backslash(Lexer *L) {
    int c = lex_at(L, 1);
    if (c == '\n' || c == '\r') {
        L->p++;
        lex_newline(L);
        return;
    }
    Loc loc = lex_here(L);
    if (c == -1) ctx_fail(L->ctx, loc, "unexpected end of file after line continuation character");
    ctx_fail(L->ctx, loc, "unexpected character after line continuation character");
}

/* The end of a physical line: NEWLINE unless inside brackets (or nothing to end). */
static void lex_line_end(Lexer *L) {
    Loc loc = lex_here(L);
    lex_newline(L);
    if (L->nopen == 0 && L->toks.len && L->toks.data[L->toks.len - 1].kind != TOK_NEWLINE)
        lex_push(L, TOK_NEWLINE, loc, "<newline>");
}

/* One token (or a comment, line break, continuation) at p; false at the end of the text. */
static bool lex_one(Lexer *L) {
    while (lex_at(L, 0) == ' ' || lex_at(L, 0) == '\t' || lex_at(L, 0) == '\f') L->p++;
    int c = lex_at(L, 0);
    if (c == -1) return false;
    if (c == '#') {
        while (lex_at(L, 0) != -1 && lex_at(L, 0) != '\n' && lex_at(L, 0) != '\r') L->p++;
    } else if (c == '\n' || c == '\r') {
        lex_line_end(L);
        if (L->nopen == 0)
            while (lex_at(L, 0) != -1 && !lex_indentation(L)) {}
    } else if (c == '\\') {
        lex_backslash(L);
    } else if (lex_is_ident_start(c)) {
        lex_name(L);
    } else if ((c >= '0' && c <= '9') || (c == '.' && lex_at(L, 1) >= '0' && lex_at(L, 1) <= '9')) {
        lex_number(L);
    } else if (c == '\'' || c == '"') {
        lex_string(L, L->p, lex_here(L));
    } else {
        lex_operator(L);
    }
    return true;
}

Token *lex_source(Ctx *ctx, const Source *src, int *ntokens) {
    Lexer *L = NEW(&ctx->arena, Lexer);
    L->ctx = ctx;
    L->src = src;
    L->p = L->line_start = src->text;
    L->end = src->text + src->len;
    L->line = 1;
    if (src->len >= 3 && !memcmp(src->text, "\xEF\xBB\xBF", 3)) L->p += 3; /* UTF-8 BOM */
    VEC_PUSH(&ctx->arena, L->indents, 0);
    while (lex_at(L, 0) != -1 && !lex_indentation(L)) {}
    while (lex_one(L)) {}
    if (L->nopen)
        ctx_fail(ctx, L->open_loc[L->nopen - 1], "'%c' was never closed", L->open[L->nopen - 1]);
    Loc loc = lex_here(L);
    if (L->toks.len && L->toks.data[L->toks.len - 1].kind != TOK_NEWLINE)
        lex_push(L, TOK_NEWLINE, loc, "<newline>");
    if (L->toks.len) loc = L->toks.data[L->toks.len - 1].loc; /* end of the last line */
    for (; L->indents.len > 1; L->indents.len--) lex_push(L, TOK_DEDENT, loc, "<dedent>");
    lex_push(L, TOK_EOF, loc, "<end of file>");
    *ntokens = L->toks.len;
    return L->toks.data;
}
