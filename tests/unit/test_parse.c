/* test_parse.c - lexer and parser: tree shapes (through an S-expression dump), error
 * messages and locations, AST_BAD_STMT recovery, the parse corpus, and a fixed-seed
 * mutation fuzz loop over the corpus (every mutant must parse or fail cleanly).
 *
 *   test_parse                      run the tests
 *   test_parse --dump [--locs] F    print the dump of file F, one top-level statement per
 *                                   line (used by tests/parse_corpus/cpython_diff.py to
 *                                   compare against CPython's own ast module)
 *
 * The corpus directory is $TILEC_PARSE_CORPUS, else tests/parse_corpus if that exists
 * (run from the repository root), else ../../tests/parse_corpus next to the binary
 * (build/tests/test_parse). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/ast.h"

#include "check.h"

/* ---- dumper: one S-expression per node --------------------------------------------- */

static bool dump_locs;
static bool dump_fstring_text = true; /* false: print every f-string as f"?" */

static void dump_expr(StrBuf *sb, const Ast *e);
static void dump_stmt(StrBuf *sb, const Ast *s);

static void dump_loc(StrBuf *sb, const Ast *e) {
    if (dump_locs) sb_printf(sb, "@%d:%d", e->loc.line, e->loc.col);
}

static void dump_open(StrBuf *sb, const char *head, const Ast *e) {
    sb_printf(sb, "(%s", head);
    dump_loc(sb, e);
}

static void dump_sub(StrBuf *sb, const Ast *e) {
    sb_putc(sb, ' ');
    dump_expr(sb, e);
}

static void dump_list(StrBuf *sb, const AstList *l) {
    for (int i = 0; i < l->len; i++) dump_sub(sb, l->data[i]);
}

static void dump_body(StrBuf *sb, const AstList *l) {
    sb_puts(sb, " [");
    for (int i = 0; i < l->len; i++) {
        if (i) sb_putc(sb, ' ');
        dump_stmt(sb, l->data[i]);
    }
    sb_putc(sb, ']');
}

static void dump_str(StrBuf *sb, const char *s, bool f) {
    sb_puts(sb, f ? "f\"" : "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') sb_printf(sb, "\\%c", *p);
        else if (*p >= 0x20 && *p < 0x7F) sb_putc(sb, (char)*p);
        else sb_printf(sb, "\\x%02x", *p);
    }
    sb_putc(sb, '"');
}

static void dump_params(StrBuf *sb, const AstArgList *ps) {
    sb_puts(sb, " (params");
    for (int i = 0; i < ps->len; i++) {
        const AstArg *p = &ps->data[i];
        sb_printf(sb, " %s%s", p->star == 2 ? "**" : p->star ? "*" : "", p->name ? p->name : "");
        if (p->name && dump_locs) sb_printf(sb, "@%d:%d", p->loc.line, p->loc.col);
        if (p->annotation) {
            sb_putc(sb, ':');
            dump_expr(sb, p->annotation);
        }
        if (p->value) {
            sb_putc(sb, '=');
            dump_expr(sb, p->value);
        }
    }
    sb_putc(sb, ')');
}

static void dump_args(StrBuf *sb, const AstArgList *args) {
    for (int i = 0; i < args->len; i++) {
        const AstArg *a = &args->data[i];
        if (a->name) sb_printf(sb, " (= %s", a->name);
        else if (a->star) sb_printf(sb, " (%s", a->star == 2 ? "**" : "*");
        if ((a->name || a->star) && dump_locs) sb_printf(sb, "@%d:%d", a->loc.line, a->loc.col);
        dump_sub(sb, a->value);
        if (a->name || a->star) sb_putc(sb, ')');
    }
}

static void dump_comp(StrBuf *sb, const Ast *e) {
    dump_open(sb, e->u.listcomp.generator ? "genexp" : "listcomp", e);
    dump_sub(sb, e->u.listcomp.elt);
    for (int i = -1; i < e->u.listcomp.more.len; i++) {
        const Ast *c = i < 0 ? e : e->u.listcomp.more.data[i];
        sb_puts(sb, " (for");
        dump_sub(sb, c->u.listcomp.target);
        dump_sub(sb, c->u.listcomp.iter);
        dump_list(sb, &c->u.listcomp.ifs);
        sb_putc(sb, ')');
    }
    sb_putc(sb, ')');
}

static void dump_compare(StrBuf *sb, const Ast *e) {
    dump_open(sb, "cmp", e);
    dump_sub(sb, e->u.compare.left);
    for (int i = 0; i < e->u.compare.ops.len; i++) {
        const char *op = e->u.compare.ops.data[i];
        sb_puts(sb, !strcmp(op, "not in") ? " not-in" : !strcmp(op, "is not") ? " is-not" : " ");
        if (strchr(op, ' ') == NULL) sb_puts(sb, op);
        dump_sub(sb, e->u.compare.comparators.data[i]);
    }
    sb_putc(sb, ')');
}

static void dump_leaf(StrBuf *sb, const Ast *e) {
    switch (e->kind) {
    case AST_NAME: sb_puts(sb, e->u.name); break;
    case AST_INT: sb_printf(sb, "%lld", (long long)e->u.ival); break;
    case AST_FLOAT: sb_printf(sb, "%.17g", e->u.fval); break;
    case AST_STR:
        if (e->u.str.fstring && !dump_fstring_text) sb_puts(sb, "f\"?\"");
        else dump_str(sb, e->u.str.value, e->u.str.fstring);
        break;
    case AST_TRUE: sb_puts(sb, "True"); break;
    case AST_FALSE: sb_puts(sb, "False"); break;
    case AST_NONE: sb_puts(sb, "None"); break;
    default: sb_puts(sb, "..."); break;
    }
    dump_loc(sb, e);
}

static void dump_expr(StrBuf *sb, const Ast *e) {
    if (!e) {
        sb_putc(sb, '_');
        return;
    }
    switch (e->kind) {
    case AST_TUPLE:
    case AST_LIST:
        dump_open(sb, e->kind == AST_TUPLE ? "tuple" : "list", e);
        dump_list(sb, &e->u.elts);
        break;
    case AST_DICT:
        dump_open(sb, "dict", e);
        for (int i = 0; i < e->u.dict.keys.len; i++) {
            sb_puts(sb, e->u.dict.keys.data[i] ? " (:" : " (**");
            if (e->u.dict.keys.data[i]) dump_sub(sb, e->u.dict.keys.data[i]);
            dump_sub(sb, e->u.dict.values.data[i]);
            sb_putc(sb, ')');
        }
        break;
    case AST_ATTR:
        dump_open(sb, ".", e);
        dump_sub(sb, e->u.attr.value);
        sb_printf(sb, " %s", e->u.attr.attr);
        break;
    case AST_CALL:
        dump_open(sb, "call", e);
        dump_sub(sb, e->u.call.func);
        dump_args(sb, &e->u.call.args);
        break;
    case AST_SUBSCRIPT:
        dump_open(sb, "sub", e);
        dump_sub(sb, e->u.subscript.value);
        dump_sub(sb, e->u.subscript.index);
        break;
    case AST_SLICE:
        dump_open(sb, "slice", e);
        dump_sub(sb, e->u.slice.lower);
        dump_sub(sb, e->u.slice.upper);
        dump_sub(sb, e->u.slice.step);
        break;
    case AST_STARRED:
        dump_open(sb, "*", e);
        dump_sub(sb, e->u.starred.value);
        break;
    case AST_UNARY:
        dump_open(sb, e->u.unary.op, e);
        dump_sub(sb, e->u.unary.operand);
        break;
    case AST_BINARY:
        dump_open(sb, e->u.binary.op, e);
        dump_sub(sb, e->u.binary.left);
        dump_sub(sb, e->u.binary.right);
        break;
    case AST_COMPARE: dump_compare(sb, e); return;
    case AST_BOOLOP:
        dump_open(sb, e->u.boolop.op, e);
        dump_list(sb, &e->u.boolop.values);
        break;
    case AST_IFEXP:
        dump_open(sb, "ifexp", e);
        dump_sub(sb, e->u.ifexp.cond);
        dump_sub(sb, e->u.ifexp.then);
        dump_sub(sb, e->u.ifexp.orelse);
        break;
    case AST_LAMBDA:
        dump_open(sb, "lambda", e);
        dump_params(sb, &e->u.lambda.params);
        dump_sub(sb, e->u.lambda.body);
        break;
    case AST_LISTCOMP: dump_comp(sb, e); return;
    default: dump_leaf(sb, e); return;
    }
    sb_putc(sb, ')');
}

static void dump_import(StrBuf *sb, const Ast *s) {
    if (s->kind == AST_IMPORT_FROM) {
        dump_open(sb, "from", s);
        sb_printf(sb, " %d %s", s->u.import.level, s->u.import.module ? s->u.import.module : "_");
    } else {
        dump_open(sb, "import", s);
    }
    for (int i = 0; i < s->u.import.names.len; i++) {
        const AstAlias *a = &s->u.import.names.data[i];
        if (a->asname) sb_printf(sb, " (as %s %s)", a->name, a->asname);
        else sb_printf(sb, " %s", a->name);
    }
}

static void dump_compound(StrBuf *sb, const Ast *s) {
    switch (s->kind) {
    case AST_DEF:
        dump_open(sb, "def", s);
        sb_printf(sb, " %s", s->u.def.name);
        dump_params(sb, &s->u.def.params);
        dump_sub(sb, s->u.def.returns);
        sb_puts(sb, " (decorators");
        dump_list(sb, &s->u.def.decorators);
        sb_putc(sb, ')');
        dump_body(sb, &s->u.def.body);
        break;
    case AST_IF:
    case AST_WHILE:
        dump_open(sb, s->kind == AST_IF ? "if" : "while", s);
        dump_sub(sb, s->u.if_.cond);
        dump_body(sb, &s->u.if_.body);
        dump_body(sb, &s->u.if_.orelse);
        break;
    case AST_FOR:
        dump_open(sb, "for", s);
        dump_sub(sb, s->u.for_.target);
        dump_sub(sb, s->u.for_.iter);
        dump_body(sb, &s->u.for_.body);
        dump_body(sb, &s->u.for_.orelse);
        break;
    case AST_WITH:
        dump_open(sb, "with", s);
        for (int i = 0; i < s->u.with.items.len; i++) {
            sb_puts(sb, " (item");
            dump_sub(sb, s->u.with.items.data[i]);
            dump_sub(sb, s->u.with.targets.data[i]);
            sb_putc(sb, ')');
        }
        dump_body(sb, &s->u.with.body);
        break;
    case AST_CLASS:
        dump_open(sb, "class", s);
        sb_printf(sb, " %s (bases", s->u.class_.name);
        dump_list(sb, &s->u.class_.bases);
        sb_puts(sb, ") (decorators");
        dump_list(sb, &s->u.class_.decorators);
        sb_putc(sb, ')');
        dump_body(sb, &s->u.class_.body);
        break;
    default:
        dump_open(sb, "try", s);
        dump_body(sb, &s->u.body);
        break;
    }
    sb_putc(sb, ')');
}

static void dump_stmt(StrBuf *sb, const Ast *s) {
    switch (s->kind) {
    case AST_EXPR_STMT:
    case AST_RETURN:
    case AST_RAISE:
        dump_open(sb,
                  s->kind == AST_EXPR_STMT ? "expr"
                  : s->kind == AST_RETURN  ? "return"
                                           : "raise",
                  s);
        dump_sub(sb, s->u.expr_stmt.value);
        break;
    case AST_ASSIGN:
        dump_open(sb, "=", s);
        dump_list(sb, &s->u.assign.targets);
        dump_sub(sb, s->u.assign.value);
        break;
    case AST_AUGASSIGN:
        dump_open(sb, s->u.augassign.op, s);
        dump_sub(sb, s->u.augassign.target);
        dump_sub(sb, s->u.augassign.value);
        break;
    case AST_ANNASSIGN:
        dump_open(sb, "ann", s);
        dump_sub(sb, s->u.annassign.target);
        dump_sub(sb, s->u.annassign.annotation);
        dump_sub(sb, s->u.annassign.value);
        break;
    case AST_BREAK:
    case AST_CONTINUE:
    case AST_PASS:
        sb_puts(sb, ast_kind_name(s->kind));
        dump_loc(sb, s);
        return;
    case AST_ASSERT:
        dump_open(sb, "assert", s);
        dump_sub(sb, s->u.assert_.cond);
        dump_sub(sb, s->u.assert_.msg);
        break;
    case AST_IMPORT:
    case AST_IMPORT_FROM: dump_import(sb, s); break;
    case AST_GLOBAL:
        dump_open(sb, s->u.global.nonlocal ? "nonlocal" : "global", s);
        for (int i = 0; i < s->u.global.names.len; i++)
            sb_printf(sb, " %s", s->u.global.names.data[i]);
        break;
    case AST_DEL:
        dump_open(sb, "del", s);
        dump_list(sb, &s->u.body);
        break;
    case AST_BAD_STMT:
        dump_open(sb, "bad", s);
        for (int i = 0; i < s->u.bad.binds.len; i++) sb_printf(sb, " %s", s->u.bad.binds.data[i]);
        break;
    default: dump_compound(sb, s); return;
    }
    sb_putc(sb, ')');
}

/* ---- guarded calls ------------------------------------------------------------------
 * CTX_TRY is used only in these small functions, which get the Ctx by pointer: a local Ctx
 * of the function that calls setjmp, changed before the longjmp, is indeterminate after it
 * (C11 7.13.2.1), and gcc and clang at -O2 really do read the stale {0} initializer. */

static bool try_module(Ctx *ctx, const Source *src, AstList *out) {
    jmp_buf jb;
    if (CTX_TRY(ctx, &jb)) return false;
    *out = parse_module(ctx, src);
    ctx->on_error = NULL;
    return true;
}

static bool try_expression(Ctx *ctx, const Source *src, Ast **out) {
    jmp_buf jb;
    if (CTX_TRY(ctx, &jb)) return false;
    *out = parse_expression(ctx, src);
    ctx->on_error = NULL;
    return true;
}

static bool try_lex(Ctx *ctx, const char *text, Token **out, int *n) {
    jmp_buf jb;
    if (CTX_TRY(ctx, &jb)) return false;
    Source *src = NEW(&ctx->arena, Source);
    *src = (Source){"t.py", arena_strdup(&ctx->arena, text), strlen(text)};
    *out = lex_source(ctx, src, n);
    ctx->on_error = NULL;
    return true;
}

static void ctx_done(Ctx *ctx) {
    sb_free(&ctx->err);
    arena_free(&ctx->arena);
}

/* ---- helpers ------------------------------------------------------------------------ */

static Source src_of(const char *text) { return (Source){"t.py", text, strlen(text)}; }

/* Dump of a module ("\n" between statements), or "ERROR: <text>" if it failed. */
static char *dump_module_text(const char *text) {
    Ctx ctx = {0};
    Source src = src_of(text);
    StrBuf sb = {0};
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        sb_printf(&sb, "ERROR: %s", ctx.err.buf);
    } else {
        for (int i = 0; i < m.len; i++) {
            if (i) sb_putc(&sb, '\n');
            dump_stmt(&sb, m.data[i]);
        }
    }
    char *out = strdup(sb.buf ? sb.buf : "");
    sb_free(&sb);
    ctx_done(&ctx);
    return out;
}

#define CHECK_MODULE(text, want)                                                                   \
    do {                                                                                           \
        char *got_ = dump_module_text(text);                                                       \
        CHECK(!strcmp(got_, want), "module %s\n  got:  %s\n  want: %s", #text, got_, want);        \
        free(got_);                                                                                \
    } while (0)

static char *dump_expression_text(const char *text) {
    Ctx ctx = {0};
    Source src = src_of(text);
    StrBuf sb = {0};
    Ast *e;
    if (!try_expression(&ctx, &src, &e)) sb_printf(&sb, "ERROR: %s", ctx.err.buf);
    else dump_expr(&sb, e);
    char *out = strdup(sb.buf ? sb.buf : "");
    sb_free(&sb);
    ctx_done(&ctx);
    return out;
}

#define CHECK_EXPR(text, want)                                                                     \
    do {                                                                                           \
        char *got_ = dump_expression_text(text);                                                   \
        CHECK(!strcmp(got_, want), "expression %s\n  got:  %s\n  want: %s", #text, got_, want);    \
        free(got_);                                                                                \
    } while (0)

/* The text must fail as a whole (a lexical error) with `want` as its first line. */
#define CHECK_FATAL(text, want)                                                                    \
    do {                                                                                           \
        char *got_ = dump_module_text(text);                                                       \
        char *nl_ = strchr(got_, '\n');                                                            \
        if (nl_) *nl_ = 0;                                                                         \
        CHECK(!strcmp(got_, "ERROR: " want), "fatal %s\n  got:  %s\n  want: ERROR: %s", #text,     \
              got_, want);                                                                         \
        free(got_);                                                                                \
    } while (0)

/* Statement `index` of the module must be AST_BAD_STMT whose error's first line is `want`. */
static void check_bad(int line, const char *text, int index, const char *want) {
    Ctx ctx = {0};
    Source src = src_of(text);
    checks++;
    const char *why = NULL;
    char *got = NULL;
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        why = "the module failed";
        got = strdup(ctx.err.buf);
    } else {
        if (index >= m.len || m.data[index]->kind != AST_BAD_STMT) {
            why = "no BAD_STMT there";
        } else {
            got = strdup(m.data[index]->u.bad.error);
            char *nl = strchr(got, '\n');
            if (nl) *nl = 0;
            if (strcmp(got, want)) why = "wrong message";
        }
    }
    if (why) {
        failures++;
        fprintf(stderr, "FAIL %s:%d: %s for %s\n  got:  %s\n  want: %s\n", __FILE__, line, why,
                text, got ? got : "", want);
    }
    free(got);
    ctx_done(&ctx);
}
#define CHECK_BAD(text, index, want) check_bad(__LINE__, text, index, want)

/* ---- tests: lexer ------------------------------------------------------------------ */

/* Token kinds as letters: N name, K keyword, I int, F float, S string, O op, n newline,
 * > indent, < dedent, $ eof. */
static char *token_shape(const char *text) {
    static const char letters[] = "$n><NIFSOK";
    Ctx ctx = {0};
    char *out;
    Token *t;
    int n;
    if (!try_lex(&ctx, text, &t, &n)) {
        out = strdup("ERROR");
    } else {
        out = calloc((size_t)n + 1, 1);
        for (int i = 0; i < n; i++) out[i] = letters[t[i].kind];
    }
    ctx_done(&ctx);
    return out;
}

#define CHECK_SHAPE(text, want)                                                                    \
    do {                                                                                           \
        char *got_ = token_shape(text);                                                            \
        CHECK(!strcmp(got_, want), "tokens of %s: got %s want %s", #text, got_, want);             \
        free(got_);                                                                                \
    } while (0)

static void test_lex_shapes(void) {
    CHECK_SHAPE("", "$");
    CHECK_SHAPE("\n\n   \n# c\n", "$");
    CHECK_SHAPE("x", "Nn$");
    CHECK_SHAPE("x = 1\n", "NOIn$");
    CHECK_SHAPE("if x:\n    y\n", "KNOn>Nn<$");
    CHECK_SHAPE("if x:\n    y\n\n  # c\n    z\nw\n", "KNOn>NnNn<Nn$");
    CHECK_SHAPE("if a:\n if b:\n  c\nd", "KNOn>KNOn>Nn<<Nn$");
    CHECK_SHAPE("f(a,\n  b)\n", "NONONOn$");
    CHECK_SHAPE("x = [1,\n\n# c\n 2]\n", "NOOIOIOn$");
    CHECK_SHAPE("x = 1 + \\\n    2\n", "NOIOIn$");
    CHECK_SHAPE("a ** b //= c ... -> := @ @= != <<= >>=", "NONONOOOOOOOOn$");
    CHECK_SHAPE("x = 1 # comment\ny", "NOInNn$");
    CHECK_SHAPE("x\r\ny\r\n", "NnNn$");
    CHECK_SHAPE("\xEF\xBB\xBFx", "Nn$");
    CHECK_SHAPE("if x:\n\ty\n        z\n", "KNOn>NnNn<$"); /* tab == 8 columns */
    CHECK_SHAPE("not_ x if_ True", "NNNK"
                                   "n$");
    CHECK_SHAPE("1if x else 2", "IKNKIn$");
    CHECK_SHAPE("'a' \"b\" '''c''' \"\"\"d\"\"\" r'e' b'f' f'g' Rb'h' bR'i' fR'j' U'k'",
                "SSSSSSSSSSSn$");
    CHECK_SHAPE("x = '''a\nb\nc'''\ny", "NOSnNn$");
    CHECK_SHAPE("ub'x'", "NSn$");
    /* f-strings, old and PEP 701 (3.12) style: each is one token */
    CHECK_SHAPE("f'{a[\"b\"]}' f\"{'}'}\" f\"{x!r:>{w}}\" f\"{x:'^10}\" f'{{x}}' rf'\\{x}'",
                "SSSSSSn$");
    CHECK_SHAPE("f'{f' {d}\\n' if d else ''} def {n}({a}):\\n'", "Sn$");
    CHECK_SHAPE("f\"{d[\"k\"]}\" + f'{\"a\" \"b\"}' + f\"\\N{DASH} {x}\"", "SOSOSn$");
    CHECK_SHAPE("f'''{\nx\n:{'>'}10}''' f\"{(lambda: 1)()}\" f'{a:{b}{c}}' Rf\"{x}\"", "SSSSn$");
    CHECK_SHAPE("f\"{f'{f\"{1}\"}'}\" x", "SNn$");
    CHECK_SHAPE("f'''{ # it's a comment\n3 * 2}''' x", "SNn$");
    CHECK_SHAPE("f\"{x\"", "ERROR");
    CHECK_SHAPE("f'{x}\ny'", "ERROR");
}

/* Lex text that must lex; NULL (a failed check) if it does not. */
static Token *lex_ok(Ctx *ctx, const char *text, int *n) {
    Token *t;
    if (try_lex(ctx, text, &t, n)) return t;
    CHECK(0, "lexing %s failed: %s", text, ctx->err.buf);
    return NULL;
}

static void test_lex_values(void) {
    Ctx ctx = {0};
    int n;
    Token *t = lex_ok(&ctx,
                      "0x1F 0o17 0b101 1_000_000 9223372036854775807 00 0_0 "
                      "1. .5 1e-3 1_000.5 2E+2 3.25e2",
                      &n);
    if (!t) return ctx_done(&ctx);
    int64_t ints[] = {31, 15, 5, 1000000, INT64_MAX, 0, 0};
    for (int i = 0; i < 7; i++)
        CHECK(t[i].kind == TOK_INT && t[i].ival == ints[i] && !t[i].error,
              "int token %d: %s = %lld", i, t[i].text, (long long)t[i].ival);
    double floats[] = {1.0, 0.5, 1e-3, 1000.5, 200.0, 325.0};
    for (int i = 0; i < 6; i++)
        CHECK(t[7 + i].kind == TOK_FLOAT && t[7 + i].fval == floats[i], "float token %s = %g",
              t[7 + i].text, t[7 + i].fval);
    CHECK(t[1].loc.line == 1 && t[1].loc.col == 6, "loc of 0o17: %d:%d", t[1].loc.line,
          t[1].loc.col);
    t = lex_ok(&ctx, "9223372036854775808 0xFFFFFFFFFFFFFFFF 1j 1.5J 0777 0x", &n);
    if (!t) return ctx_done(&ctx);
    for (int i = 0; i < 6; i++) CHECK(t[i].error != NULL, "token %s has no error", t[i].text);
    t = lex_ok(&ctx,
               "'a\\n\\t\\\\\\'\\\"' r'a\\n' b'\\xff\\101' '\\u00e9\\U0001F600\\x41' "
               "'\\q' 'x\\\ny' '\\N{DASH}' f'{x}\\n' '''a\r\nb'''",
               &n);
    if (!t) return ctx_done(&ctx);
    const char *want[] = {"a\n\t\\'\"",
                          "a\\n",
                          "\xff"
                          "A",
                          "\xc3\xa9\xf0\x9f\x98\x80"
                          "A",
                          "\\q",
                          "xy",
                          "\\N{DASH}",
                          "{x}\\n",
                          "a\nb"};
    CHECK(t[6].error && !t[5].error && !t[7].error, "\\N{...} is marked for the parser");
    for (int i = 0; i < 9; i++)
        CHECK(t[i].kind == TOK_STRING && !strcmp(t[i].text, want[i]), "string %d: [%s]", i,
              t[i].text);
    CHECK(t[7].fstring && !t[6].fstring, "fstring flags");
    t = lex_ok(&ctx, "if x:\n    y = 'a'\nz", &n);
    if (!t) return ctx_done(&ctx);
    CHECK(n == 13 && t[4].kind == TOK_INDENT && t[4].loc.line == 2 && t[4].loc.col == 5,
          "indent token loc %d:%d", t[4].loc.line, t[4].loc.col);
    CHECK(t[7].loc.line == 2 && t[7].loc.col == 9, "string loc %d:%d", t[7].loc.line, t[7].loc.col);
    CHECK(t[12].kind == TOK_EOF, "eof last");
    ctx_done(&ctx);
}

static void test_lex_errors(void) {
    CHECK_FATAL("x = 'abc\ny = 1\n", "t.py:1:5: error: unterminated string literal");
    CHECK_FATAL("x = 1\ny = \"\"\"abc\n\n", "t.py:2:5: error: unterminated triple-quoted "
                                            "string literal");
    CHECK_FATAL("x = 'abc\\'\n", "t.py:1:5: error: unterminated string literal");
    CHECK_FATAL("x = r'\\'", "t.py:1:5: error: unterminated string literal");
    CHECK_FATAL("x = 1\ny = f'{a[\"k]}'\n", "t.py:2:5: error: unterminated string literal");
    CHECK_FATAL("y = f'''{a}\n\n", "t.py:1:5: error: unterminated triple-quoted string literal");
    CHECK_FATAL("x = 1 $ 2", "t.py:1:7: error: invalid character '$' in program");
    CHECK_FATAL("x = a ? b", "t.py:1:7: error: invalid character '?' in program");
    CHECK_FATAL("x = 1\n  y = !2", "t.py:2:7: error: invalid character '!' in program");
    CHECK_FATAL("x\x01", "t.py:1:2: error: invalid character (byte 0x01) in program");
    CHECK_FATAL("if x:\n    a\n  b\n",
                "t.py:3:3: error: unindent does not match any outer indentation level");
    CHECK_FATAL("if x:\n        a\n\tb\n  c\n",
                "t.py:4:3: error: unindent does not match any outer indentation level");
    CHECK_FATAL("x = (1,\n  2\n", "t.py:1:5: error: '(' was never closed");
    CHECK_FATAL("x = 1)\n", "t.py:1:6: error: unmatched ')'");
    CHECK_FATAL("x = [1, 2)\n", "t.py:1:10: error: closing parenthesis ')' does not match "
                                "opening parenthesis '[' on line 1");
    CHECK_FATAL("x = 1 \\ 2", "t.py:1:7: error: unexpected character after line continuation "
                              "character");
    CHECK_FATAL("x = '\\x4'", "t.py:1:6: error: truncated \\x escape in string literal "
                              "(needs 2 hex digits)");
    CHECK_FATAL("x = '''\n\n  \\U00110000'''",
                "t.py:3:3: error: illegal Unicode character in string literal");
    /* the message is followed by the source line and a caret under the column */
    char *got = dump_module_text("x = 1\ny = 'abc\n");
    CHECK(strstr(got, "t.py:2:5: error: unterminated string literal\n    y = 'abc\n        ^\n"),
          "caret: %s", got);
    free(got);
    char deep[700];
    memset(deep, '(', 300);
    strcpy(deep + 300, "x");
    CHECK_FATAL(deep, "t.py:1:201: error: too many nested parentheses (limit 200)");
}

/* ---- tests: expressions ------------------------------------------------------------ */

static void test_expressions(void) {
    CHECK_EXPR("1 + 2 * 3", "(+ 1 (* 2 3))");
    CHECK_EXPR("1 - 2 - 3", "(- (- 1 2) 3)");
    CHECK_EXPR("2 ** 3 ** 2", "(** 2 (** 3 2))");
    CHECK_EXPR("-2 ** 2", "(- (** 2 2))");
    CHECK_EXPR("2 ** -1", "(** 2 (- 1))");
    CHECK_EXPR("a | b ^ c & d << 1 + 2 * -e", "(| a (^ b (& c (<< d (+ 1 (* 2 (- e)))))))");
    CHECK_EXPR("a // b % c @ d / e", "(/ (@ (% (// a b) c) d) e)");
    CHECK_EXPR("~x + +y", "(+ (~ x) (+ y))");
    CHECK_EXPR("not a or b and not c", "(or (not a) (and b (not c)))");
    CHECK_EXPR("a or b or c", "(or a b c)");
    CHECK_EXPR("a < b <= c != d", "(cmp a < b <= c != d)");
    CHECK_EXPR("a not in b is not c in d is e", "(cmp a not-in b is-not c in d is e)");
    CHECK_EXPR("not a == b", "(not (cmp a == b))");
    CHECK_EXPR("a if b else c if d else e", "(ifexp b a (ifexp d c e))");
    CHECK_EXPR("lambda: 0", "(lambda (params) 0)");
    CHECK_EXPR("lambda i, j=2, *a, k, **kw: (i, j)",
               "(lambda (params i j=2 *a k **kw) (tuple i j))");
    CHECK_EXPR("lambda x: lambda y: x + y", "(lambda (params x) (lambda (params y) (+ x y)))");
    CHECK_EXPR("f(a, b=1, *c, **d)", "(call f a (= b 1) (* c) (** d))");
    CHECK_EXPR("f()(x)[0].y", "(. (sub (call (call f) x) 0) y)");
    CHECK_EXPR("T.Kernel(8, 8, threads=128)", "(call (. T Kernel) 8 8 (= threads 128))");
    CHECK_EXPR("A[i, j]", "(sub A (tuple i j))");
    CHECK_EXPR("A[a:b, :]", "(sub A (tuple (slice a b _) (slice _ _ _)))");
    CHECK_EXPR("A[::2]", "(sub A (slice _ _ 2))");
    CHECK_EXPR("A[1:]", "(sub A (slice 1 _ _))");
    CHECK_EXPR("A[:-1:]", "(sub A (slice _ (- 1) _))");
    CHECK_EXPR("A[..., 0]", "(sub A (tuple ... 0))");
    CHECK_EXPR("A[i,]", "(sub A (tuple i))");
    CHECK_EXPR("A[()]", "(sub A (tuple))");
    CHECK_EXPR("A[by * bm, k * bk]", "(sub A (tuple (* by bm) (* k bk)))");
    CHECK_EXPR("(1, 2,)", "(tuple 1 2)");
    CHECK_EXPR("(1,)", "(tuple 1)");
    CHECK_EXPR("((x))", "x");
    CHECK_EXPR("()", "(tuple)");
    CHECK_EXPR("[]", "(list)");
    CHECK_EXPR("[1, *a, 2,]", "(list 1 (* a) 2)");
    CHECK_EXPR("{}", "(dict)");
    CHECK_EXPR("{'a': 1, **d, 2: 3,}", "(dict (: \"a\" 1) (** d) (: 2 3))");
    CHECK_EXPR("{1, 2}", "(call set (list 1 2))");
    CHECK_EXPR("{x for x in y}", "(call set (genexp x (for x y)))");
    CHECK_EXPR("{k: v for k, v in d}", "(call dict (genexp (tuple k v) (for (tuple k v) d)))");
    CHECK_EXPR("[x * 2 for x in range(4) if x if x > 1]",
               "(listcomp (* x 2) (for x (call range 4) x (cmp x > 1)))");
    CHECK_EXPR("[(i, j) for i in a for j in b if i < j]",
               "(listcomp (tuple i j) (for i a) (for j b (cmp i < j)))");
    CHECK_EXPR("sum(x for x in y)", "(call sum (genexp x (for x y)))");
    CHECK_EXPR("(x for x in y)", "(genexp x (for x y))");
    CHECK_EXPR("[a if c else b for a, b in z]", "(listcomp (ifexp c a b) (for (tuple a b) z))");
    CHECK_EXPR("{e: d for *e, d in g}", "(call dict (genexp (tuple e d) (for (tuple (* e) d) g)))");
    CHECK_EXPR("[x for x, in y]", "(listcomp x (for (tuple x) y))");
    CHECK_EXPR("'a' 'b' \"c\"", "\"abc\"");
    CHECK_EXPR("'a' f'{b}'", "f\"a{b}\"");
    CHECK_EXPR("True, False, None, ...", "(tuple True False None ...)");
    CHECK_EXPR("1.5e3", "1500");
    CHECK_EXPR("x[1](2).y[3]", "(sub (. (call (sub x 1) 2) y) 3)");
    CHECK_EXPR("a.b.c", "(. (. a b) c)");
    CHECK_EXPR("*a, b", "(tuple (* a) b)");
    CHECK_EXPR("  1 + 2  ", "(+ 1 2)");
    CHECK_EXPR("(64,\n 64)\n", "(tuple 64 64)");
    CHECK_EXPR("1 2", "ERROR: t.py:1:3: error: unexpected number 2 after the expression\n"
                      "    1 2\n      ^\n");
    CHECK_EXPR("", "ERROR: t.py:1:1: error: expected an expression, found end of file\n"
                   "    \n    ^\n");
    CHECK_EXPR("1 +", "ERROR: t.py:1:4: error: expected an expression, found end of line\n"
                      "    1 +\n       ^\n");
    CHECK_EXPR("(x := 1)", "ERROR: t.py:1:4: error: assignment expressions (:=) are not "
                           "supported\n    (x := 1)\n       ^\n");
    CHECK_EXPR("f(a=1, b)", "ERROR: t.py:1:8: error: positional argument follows keyword "
                            "argument\n    f(a=1, b)\n           ^\n");
    CHECK_EXPR("f(x for x in y, 1)", "ERROR: t.py:1:3: error: a generator expression must be "
                                     "parenthesized here\n    f(x for x in y, 1)\n      ^\n");
    CHECK_EXPR("2 ** 64", "(** 2 64)");
    CHECK_EXPR("18446744073709551616", "ERROR: t.py:1:1: error: integer literal is too large "
                                       "(tilec integers are 64-bit)\n    18446744073709551616\n"
                                       "    ^\n");
    CHECK_EXPR("3j", "ERROR: t.py:1:1: error: complex (imaginary) literals are not supported\n"
                     "    3j\n    ^\n");
    CHECK_EXPR("await x", "ERROR: t.py:1:1: error: 'await' is not supported\n    await x\n"
                          "    ^\n");
    CHECK_EXPR("x if y", "ERROR: t.py:1:7: error: expected 'else', found end of line\n"
                         "    x if y\n          ^\n");
}

static void test_expression_locs(void) {
    dump_locs = true;
    CHECK_EXPR("a + b * c", "(+@1:1 a@1:1 (*@1:5 b@1:5 c@1:9))");
    CHECK_EXPR("(a + b) * c", "(*@1:1 (+@1:2 a@1:2 b@1:6) c@1:11)");
    CHECK_EXPR("f(x)[1].y", "(.@1:1 (sub@1:1 (call@1:1 f@1:1 x@1:3) 1@1:6) y)");
    CHECK_EXPR("-x ** 2", "(-@1:1 (**@1:2 x@1:2 2@1:7))");
    CHECK_EXPR("a, (b, c)", "(tuple@1:1 a@1:1 (tuple@1:4 b@1:5 c@1:8))");
    CHECK_EXPR("f(k=1, *a, **b)", "(call@1:1 f@1:1 (= k@1:3 1@1:5) (*@1:8 a@1:9) "
                                  "(**@1:12 b@1:14))");
    CHECK_EXPR("A[1:2, :]", "(sub@1:1 A@1:1 (tuple@1:3 (slice@1:3 1@1:3 2@1:5 _) "
                            "(slice@1:8 _ _ _)))");
    CHECK_EXPR("x if c else\\\n  y", "(ifexp@1:1 c@1:6 x@1:1 y@2:3)");
    CHECK_EXPR("[\n  1,\n  2]", "(list@1:1 1@2:3 2@3:3)");
    dump_locs = false;
}

/* ---- tests: statements ------------------------------------------------------------- */

static void test_statements(void) {
    CHECK_MODULE("x = 1", "(= x 1)");
    CHECK_MODULE("a = b = c, d", "(= a b (tuple c d))");
    CHECK_MODULE("a, b = b, a\n", "(= (tuple a b) (tuple b a))");
    CHECK_MODULE("(a, [b, *c]) = x", "(= (tuple a (list b (* c))) x)");
    CHECK_MODULE("x[i, j] = y.z = 0", "(= (sub x (tuple i j)) (. y z) 0)");
    CHECK_MODULE("x += 1; y //= 2; z **= 3;", "(+= x 1)\n(//= y 2)\n(**= z 3)");
    CHECK_MODULE("x: int = 5\ny: T.Tensor((M,), dtype)",
                 "(ann x int 5)\n(ann y (call (. T Tensor) (tuple M) dtype) _)");
    CHECK_MODULE("'''doc'''\nf(x)\n", "(expr \"doc\")\n(expr (call f x))");
    CHECK_MODULE("def f(a, b: int = 2, *args, c, d=4, **kw) -> int:\n    return a\n",
                 "(def f (params a b:int=2 *args c d=4 **kw) int (decorators) [(return a)])");
    CHECK_MODULE("def f(a, /, b, *, c):\n  pass", "(def f (params a b * c) _ (decorators) [pass])");
    CHECK_MODULE("def f(): return", "(def f (params) _ (decorators) [(return _)])");
    CHECK_MODULE("@T.prim_func\n@tilelang.jit(out_idx=[-1])\ndef k(\n    A: T.Tensor((M, K), dt),"
                 "\n):\n    '''doc'''\n    def inner(x):\n        return x, 1\n    return inner",
                 "(def k (params A:(call (. T Tensor) (tuple M K) dt)) _ (decorators "
                 "(. T prim_func) (call (. tilelang jit) (= out_idx (list (- 1))))) "
                 "[(expr \"doc\") (def inner (params x) _ (decorators) [(return (tuple x 1))]) "
                 "(return inner)])");
    CHECK_MODULE("with T.Kernel(8, 8, threads=128) as (bx, by):\n    pass",
                 "(with (item (call (. T Kernel) 8 8 (= threads 128)) (tuple bx by)) [pass])");
    CHECK_MODULE("with a as (x, y), b as z, c:\n    pass",
                 "(with (item a (tuple x y)) (item b z) (item c _) [pass])");
    CHECK_MODULE("with (a as b,\n      c):\n    pass", "(with (item a b) (item c _) [pass])");
    CHECK_MODULE("with (a, b) as c: pass", "(with (item (tuple a b) c) [pass])");
    CHECK_MODULE("for i, (j, k) in enumerate(x):\n    break\nelse:\n    continue",
                 "(for (tuple i (tuple j k)) (call enumerate x) [break] [continue])");
    CHECK_MODULE("for k in T.Pipelined(n, num_stages=3): pass",
                 "(for k (call (. T Pipelined) n (= num_stages 3)) [pass] [])");
    CHECK_MODULE("for x in 1, 2: pass", "(for x (tuple 1 2) [pass] [])");
    CHECK_MODULE("while x < 3:\n    x += 1\nelse:\n    pass",
                 "(while (cmp x < 3) [(+= x 1)] [pass])");
    CHECK_MODULE("if a:\n    x\nelif b:\n    y\nelif c: z\nelse:\n    w",
                 "(if a [(expr x)] [(if b [(expr y)] [(if c [(expr z)] [(expr w)])])])");
    CHECK_MODULE("if a: pass; x = 1\n", "(if a [pass (= x 1)] [])");
    CHECK_MODULE("try:\n    import torch\nexcept ImportError as e:\n    torch = None\n"
                 "except (A, B):\n    pass\nelse:\n    pass\nfinally:\n    x = 1",
                 "(try [(import torch)])");
    CHECK_MODULE("try:\n    x\nfinally:\n    y", "(try [(expr x)])");
    CHECK_MODULE("class A(B, C, metaclass=M):\n    '''d'''\n    x = 1\n    def f(self): pass",
                 "(class A (bases B C) (decorators) [(expr \"d\") (= x 1) (def f (params self) _ "
                 "(decorators) [pass])])");
    CHECK_MODULE("@dataclass\nclass P: x: int", "(class P (bases) (decorators dataclass) "
                                                "[(ann x int _)])");
    CHECK_MODULE("import a.b.c as d, e\nfrom . import x\nfrom ..m.n import (y as z, w,)\n"
                 "from ...p import *\nfrom .... import q",
                 "(import (as a.b.c d) e)\n(from 1 _ x)\n(from 2 m.n (as y z) w)\n(from 3 p *)\n"
                 "(from 4 _ q)");
    CHECK_MODULE("def f():\n    global a, b\n    nonlocal c\n    del x[0], y\n    raise E(1) "
                 "from e\n    raise\n    assert x, 'm'\n    assert y",
                 "(def f (params) _ (decorators) [(global a b) (nonlocal c) (del (sub x 0) y) "
                 "(raise (call E 1)) (raise _) (assert x \"m\") (assert y _)])");
    CHECK_MODULE("if __name__ == \"__main__\":\n    main()",
                 "(if (cmp __name__ == \"__main__\") [(expr (call main))] [])");
    CHECK_MODULE("x = [\n    1,\n  2,\n]\ny = (a +\n     b)", "(= x (list 1 2))\n(= y (+ a b))");
    CHECK_MODULE("return x,", "(return (tuple x))");
    CHECK_MODULE("match = re.match(p, s)\nmatch.group(0)\nprint(match)",
                 "(= match (call (. re match) p s))\n(expr (call (. match group) 0))\n"
                 "(expr (call print match))");
    CHECK_MODULE("if x:\n\n    # comment\n\n    y\n", "(if x [(expr y)] [])");
    CHECK_MODULE("if x:\r\n    y\r\nz\r\n", "(if x [(expr y)] [])\n(expr z)");
    CHECK_MODULE("", "");
    CHECK_MODULE("def f(*, a): pass", "(def f (params * a) _ (decorators) [pass])");
    CHECK_MODULE("def f(*a: *Ts): pass", "(def f (params *a:(* Ts)) _ (decorators) [pass])");
}

static void test_statement_locs(void) {
    dump_locs = true;
    CHECK_MODULE("@d\ndef f(a, *b):\n  return a", "(def@2:1 f (params a@2:7 *b@2:11) _ "
                                                  "(decorators d@1:2) [(return@3:3 a@3:10)])");
    CHECK_MODULE("if a:\n  pass\nelif b:\n  x = 1",
                 "(if@1:1 a@1:4 [pass@2:3] [(if@3:1 b@3:6 [(=@4:3 x@4:3 1@4:7)] [])])");
    CHECK_MODULE("(a).b += 1", "(+=@1:1 (.@1:1 a@1:2 b) 1@1:10)");
    CHECK_MODULE("  \t\nx = 1", "(=@2:1 x@2:1 1@2:5)");
    dump_locs = false;
}

/* ---- tests: syntax errors and recovery --------------------------------------------- */

static void test_bad_statements(void) {
    CHECK_BAD("x = (1 2)\n", 0, "t.py:1:8: error: expected ')', found number 2");
    CHECK_BAD("if x\n    y\n", 0, "t.py:1:5: error: expected ':', found end of line");
    CHECK_BAD("x = 1\n    y = 2\n", 1, "t.py:2:5: error: unexpected indent");
    CHECK_BAD("def f():\nreturn 1\n", 0,
              "t.py:2:1: error: expected an indented block after function definition on line 1");
    CHECK_BAD("for x in y:\n", 0,
              "t.py:1:12: error: expected an indented block after 'for' statement on line 1");
    CHECK_BAD("1 = x", 0, "t.py:1:1: error: cannot assign to a literal");
    CHECK_BAD("f() = x", 0, "t.py:1:1: error: cannot assign to a function call");
    CHECK_BAD("a, b += 1", 0,
              "t.py:1:1: error: cannot use augmented assignment on a "
              "tuple");
    CHECK_BAD("x = yield 1", 0, "t.py:1:5: error: 'yield' is not supported");
    CHECK_BAD("async def f(): pass", 0, "t.py:1:1: error: async functions are not supported");
    CHECK_BAD("if (n := 10) > 5: pass", 0,
              "t.py:1:7: error: assignment expressions (:=) are not supported");
    CHECK_BAD("match command.split():\n    case [a]:\n        pass\n", 0,
              "t.py:1:1: error: match statements are not supported");
    CHECK_BAD("s = 'a' '\\N{BULLET}'", 0,
              "t.py:1:9: error: named Unicode escapes (\\N{...}) "
              "are not supported");
    CHECK_BAD("s = ('a'\n     'b\\0')", 0,
              "t.py:2:6: error: strings containing NUL characters "
              "are not supported");
    CHECK_BAD("x = 0777", 0,
              "t.py:1:5: error: leading zeros in decimal integer literals are "
              "not permitted; use an 0o prefix for octal integers");
    CHECK_BAD("z = 1 + 2j", 0, "t.py:1:9: error: complex (imaginary) literals are not supported");
    CHECK_BAD("def f[T](x): pass", 0, "t.py:1:6: error: type parameter lists are not supported");
    CHECK_BAD("@deco\nx = 1", 0,
              "t.py:2:1: error: expected a function or class definition "
              "after the decorator, found name 'x'");
    CHECK_BAD("def f(a=1, b): pass", 0,
              "t.py:1:12: error: a parameter without a default follows one with a default");
    CHECK_BAD("print 'hello'", 0, "t.py:1:7: error: invalid syntax: unexpected string literal");
    CHECK_BAD("try:\n    x\ny = 1", 0,
              "t.py:3:1: error: expected 'except' or 'finally', "
              "found name 'y'");
    CHECK_BAD("x = a.1", 0, "t.py:1:6: error: invalid syntax: unexpected number .1");
    CHECK_BAD("else: pass", 0, "t.py:1:1: error: expected an expression, found keyword 'else'");
    CHECK_BAD("del f()", 0, "t.py:1:5: error: cannot delete a function call");
    CHECK_BAD("for 1 in x: pass", 0, "t.py:1:5: error: cannot assign to a literal");
    CHECK_BAD("x = *a", 0, "t.py:1:5: error: cannot use a starred expression here");
    CHECK_BAD("class C:\n    def f(self):\n        await g()\n", 0,
              "t.py:3:9: error: 'await' is not supported");
}

/* Recovery: resume at the next column-1 line; the rest of the module is intact; binds. */
static void test_recovery(void) {
    CHECK_MODULE("a = 1\nb = (2 3)\nc = 4\n", "(= a 1)\n(bad b)\n(= c 4)");
    CHECK_MODULE("def f(x):\n    y = x +\n    return y\ndef g(): pass\n",
                 "(bad f)\n(def g (params) _ (decorators) [pass])");
    CHECK_MODULE("@deco(1)\nasync def main():\n    await x\nz = 2", "(bad main)\n(= z 2)");
    CHECK_MODULE("class A:\n    def f(self):\n        x = yield\n    y = 2\nB = A",
                 "(bad A)\n(= B A)");
    CHECK_MODULE("x, (y, z) = w = 1 if a else 2 2\nq = 0", "(bad x y z w)\n(= q 0)");
    CHECK_MODULE("import a.b, c as d\nfrom m import (e, f as g) + 1\n",
                 "(import a.b (as c d))\n(bad e g)");
    CHECK_MODULE("x[i] = v = 1 2\nn: int = 3 3\nk += 1 1\n", "(bad v)\n(bad n)\n(bad k)");
    CHECK_MODULE("if x:\n    y = 1\nelse:\n    z = (\n        1 2)\nw = 3\n", "(bad y z)\n(= w 3)");
    CHECK_MODULE("try:\n    import torch as th\nexcept Exception as e:\n    th = None 1\n",
                 "(bad th e th)");
    CHECK_MODULE("for i, j in x: y = 1 1\n", "(bad i j)"); /* best effort: line starts only */
    CHECK_MODULE("with open(p) as fh:\n    data = fh.read() +\n", "(bad fh data)");
    CHECK_MODULE("x = 1\n    y = 2\n    z = 3\nw = 4", "(= x 1)\n(bad y z)\n(= w 4)");
    CHECK_MODULE("x = 1 +\n\ndef f(): pass", "(bad x)\n(def f (params) _ (decorators) [pass])");
    CHECK_MODULE("def f():\n    if a:\n        b\n  c = 1\n",
                 "ERROR: t.py:4:3: error: unindent "
                 "does not match any outer indentation level\n      c = 1\n      ^\n");
    CHECK_MODULE("@x\n@y\ndef f(a b): pass\nv = 1", "(bad f)\n(= v 1)");
    CHECK_MODULE("print 'x'\nprint('ok')", "(bad)\n(expr (call print \"ok\"))");
    CHECK_MODULE("print >>f, 'x'", "(expr (tuple (>> print f) \"x\"))"); /* valid Python 3 */
    CHECK_MODULE(";\nx = 1", "(bad)\n(= x 1)");
    CHECK_MODULE("x = (1 +\n   2 3)\ny = 1", "(bad x)\n(= y 1)");
    CHECK_MODULE("if a:\n    x = 1 1\nelif b:\n    y = 2\nelse:\n    z = 3\ntry:\n    w = 1 1\n"
                 "except E:\n    pass\nfinally:\n    v = 5\nok = 1",
                 "(bad x y z)\n(bad w v)\n(= ok 1)"); /* one statement each */
    /* a BAD_STMT's loc is its first token; its error holds the caret line */
    Ctx ctx = {0};
    Source src = src_of("ok = 1\n@d\ndef f(\n    a b): pass\n");
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        CHECK(0, "failed: %s", ctx.err.buf);
    } else {
        Ast *b = m.len == 2 ? m.data[1] : NULL;
        CHECK(b && b->kind == AST_BAD_STMT && b->loc.line == 2 && b->loc.col == 1, "bad loc");
        CHECK(b && !strcmp(b->u.bad.error, "t.py:4:7: error: expected ')', found name 'b'\n"
                                           "        a b): pass\n          ^\n"),
              "bad text: %s", b ? b->u.bad.error : "");
        CHECK(ctx.err.len == 0, "ctx->err untouched by recovered errors");
    }
    ctx_done(&ctx);
}

/* Deep nesting ends in a clean error, never a stack overflow. */
static void test_depth(void) {
    static char buf[200000];
    struct {
        const char *unit, *tail;
        int n;
    } cases[] = {
        {"not ", "x", 20000},         {"-", "x", 20000},
        {"x ** ", "x", 20000},        {"lambda: ", "x", 20000},
        {"x if y else ", "x", 10000}, {"[", "", 150},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t n = strlen(cases[c].unit), len = 4;
        memcpy(buf, "v = ", 4);
        for (int i = 0; i < cases[c].n && len + n < sizeof buf - 200; i++, len += n)
            memcpy(buf + len, cases[c].unit, n);
        strcpy(buf + len, cases[c].tail);
        len += strlen(cases[c].tail);
        for (int i = 0; cases[c].unit[0] == '[' && i < cases[c].n; i++) buf[len++] = ']';
        strcpy(buf + len, "\nw = 1\n");
        char *got = dump_module_text(buf);
        if (cases[c].unit[0] == '[') {
            CHECK(!strncmp(got, "(= v (list (list (list", 22), "[: %.60s", got);
        } else {
            CHECK(!strcmp(got, "(bad v)\n(= w 1)"), "deep %s: %.80s", cases[c].unit, got);
        }
        free(got);
    }
    /* 300 nested blocks: the def fails cleanly */
    size_t len = 0;
    for (int i = 0; i < 300; i++) {
        for (int k = 0; k < i; k++) buf[len++] = ' ';
        memcpy(buf + len, "if x:\n", 6);
        len += 6;
    }
    for (int k = 0; k < 300; k++) buf[len++] = ' ';
    strcpy(buf + len, "pass\nw = 1\n");
    char *got = dump_module_text(buf);
    CHECK(!strcmp(got, "(bad)\n(= w 1)"), "deep blocks: %.80s", got);
    free(got);
    /* long flat inputs are fine (and linear) */
    len = 0;
    for (int i = 0; i < 15000; i++) len += (size_t)sprintf(buf + len, "x%d = a + b\n", i % 10);
    Ctx ctx = {0};
    Source src = {"t.py", buf, len};
    AstList m;
    CHECK(try_module(&ctx, &src, &m) && m.len == 15000, "long file statements");
    ctx_done(&ctx);
}

/* ---- corpus ------------------------------------------------------------------------ */

static char corpus_path[4096] = "tests/parse_corpus";

static const char *corpus_dir(void) {
    const char *d = getenv("TILEC_PARSE_CORPUS");
    return d && *d ? d : corpus_path;
}

static void corpus_locate(const char *argv0) {
    DIR *d = opendir(corpus_path);
    const char *slash = strrchr(argv0, '/');
    if (d) {
        closedir(d);
    } else if (slash) {
        snprintf(corpus_path, sizeof corpus_path, "%.*s/../../tests/parse_corpus",
                 (int)(slash - argv0), argv0);
    }
}

static char *read_corpus(Arena *a, const char *name, size_t *len) {
    char *path = arena_printf(a, "%s/%s", corpus_dir(), name);
    char *text = read_file_arena(a, path, SIZE_MAX, len);
    CHECK(text != NULL,
          "cannot read %s (run from the repository root or set "
          "TILEC_PARSE_CORPUS)",
          path);
    return text;
}

static int count_kind(const AstList *m, AstKind k) {
    int n = 0;
    for (int i = 0; i < m->len; i++) n += m->data[i]->kind == k;
    return n;
}

static const Ast *find_def(const AstList *m, const char *name) {
    for (int i = 0; i < m->len; i++)
        if (m->data[i]->kind == AST_DEF && !strcmp(m->data[i]->u.def.name, name)) return m->data[i];
    return NULL;
}

static void test_corpus_gemm(void) {
    Ctx ctx = {0};
    size_t len;
    char *text = read_corpus(&ctx.arena, "gemm.py", &len);
    if (!text) return arena_free(&ctx.arena);
    Source src = {"gemm.py", text, len};
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        CHECK(0, "gemm.py failed: %s", ctx.err.buf);
    } else {
        CHECK(count_kind(&m, AST_BAD_STMT) == 0, "gemm.py has no bad statements");
        const Ast *mm = find_def(&m, "matmul");
        CHECK(mm && mm->u.def.decorators.len == 1 && mm->u.def.params.len == 8, "matmul def");
        const Ast *inner = mm && mm->u.def.body.len == 3 ? mm->u.def.body.data[1] : NULL;
        CHECK(mm && mm->u.def.body.data[0]->kind == AST_EXPR_STMT, "docstring");
        CHECK(inner && inner->kind == AST_DEF && !strcmp(inner->u.def.name, "gemm") &&
                  inner->u.def.params.len == 3 && inner->u.def.params.data[0].annotation,
              "inner prim_func");
        const Ast *with = inner && inner->u.def.body.len ? inner->u.def.body.data[0] : NULL;
        if (!with || with->kind != AST_WITH || with->u.with.body.len < 5) {
            CHECK(0, "no with statement in gemm.py");
            goto out;
        }
        CHECK(with->u.with.targets.data[0]->kind == AST_TUPLE, "with T.Kernel(...) as (bx, by)");
        CHECK(with->loc.line == 25 && with->loc.col == 9, "with loc");
        StrBuf sb = {0};
        dump_stmt(&sb, with->u.with.body.data[4]);
        CHECK(!strcmp(sb.buf, "(for k (call (. T Pipelined) (call (. T ceildiv) K block_K) "
                              "(= num_stages 3)) [(expr (call (. T copy) (sub A (tuple (* by "
                              "block_M) (* k block_K))) A_shared)) (expr (call (. T copy) (sub B "
                              "(tuple (* bx block_N) (* k block_K))) B_shared)) (expr (call (. T "
                              "gemm) A_shared B_shared C_local (= transpose_B True)))] [])"),
              "pipelined loop: %s", sb.buf);
        sb_free(&sb);
        const Ast *last = m.data[m.len - 1];
        CHECK(last->kind == AST_IF && last->u.if_.body.len == 6, "__main__ block");
    }
out:
    ctx_done(&ctx);
}

static void test_corpus_realworld(void) {
    Ctx ctx = {0};
    size_t len;
    char *text = read_corpus(&ctx.arena, "realworld.py", &len);
    if (!text) return arena_free(&ctx.arena);
    Source src = {"realworld.py", text, len};
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        CHECK(0, "realworld.py failed: %s", ctx.err.buf);
    } else {
        StrBuf sb = {0};
        for (int i = 0; i < m.len; i++)
            if (m.data[i]->kind == AST_BAD_STMT) {
                dump_stmt(&sb, m.data[i]);
                sb_putc(&sb, ' ');
            }
        CHECK(sb.buf && !strcmp(sb.buf, "(bad PATH) (bad fetch) (bad Shape) (bad walrus_user) "
                                        "(bad gen) "
                                        "(bad dispatch) (bad cplx) "),
              "realworld bad statements: %s", sb.buf ? sb.buf : "");
        sb_free(&sb);
        CHECK(find_def(&m, "flash_attention") && find_def(&m, "main") && find_def(&m, "helper"),
              "the kernel factory and the others survive");
        CHECK(count_kind(&m, AST_CLASS) == 2, "classes kept");
    }
    ctx_done(&ctx);
}

/* Every .py in the corpus parses without a fatal error. */
static void test_corpus_all(void) {
    DIR *d = opendir(corpus_dir());
    CHECK(d != NULL, "cannot open %s", corpus_dir());
    if (!d) return;
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".py")) continue;
        Ctx ctx = {0};
        size_t len;
        char *text = read_corpus(&ctx.arena, e->d_name, &len);
        Source src = {e->d_name, text ? text : "", text ? len : 0};
        AstList m;
        if (!try_module(&ctx, &src, &m)) CHECK(0, "%s: %s", e->d_name, ctx.err.buf);
        files++;
        ctx_done(&ctx);
    }
    closedir(d);
    CHECK(files >= 3, "corpus has %d files", files);
}

/* ---- fuzz: mutants of the corpus end in success or a clean error ---------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static size_t mutate(char *buf, size_t len, size_t cap) {
    static const char interesting[] = "()[]{}:,.=\n\t \\'\"#@*-+0x_fjrb";
    int nops = 1 + (int)(rng() % 4);
    for (int k = 0; k < nops && len > 2; k++) {
        size_t i = rng() % len, j = rng() % len;
        switch (rng() % 4) {
        case 0:
            memmove(buf + i, buf + i + 1, len - i - 1);
            len--;
            break; /* delete */
        case 1:
            if (len + 1 < cap) {
                memmove(buf + i + 1, buf + i, len - i); /* duplicate */
                len++;
            }
            break;
        case 2: {
            char c = buf[i];
            buf[i] = buf[j];
            buf[j] = c;
            break;
        }                                                                       /* swap */
        default: buf[i] = interesting[rng() % (sizeof interesting - 1)]; break; /* replace */
        }
    }
    buf[len] = 0;
    return len;
}

/* Walks the whole tree (via the dumper) so that a malformed node would crash here. */
static void fuzz_one(const char *text, size_t len, int *ok, int *failed, int *bad) {
    Ctx ctx = {0};
    Source src = {"m.py", text, len};
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        (*failed)++;
        CHECK(ctx.err.buf && !strncmp(ctx.err.buf, "m.py:", 5) && strstr(ctx.err.buf, ": error: "),
              "fuzz error text: %s", ctx.err.buf ? ctx.err.buf : "(none)");
    } else {
        StrBuf sb = {0};
        for (int i = 0; i < m.len; i++) {
            dump_stmt(&sb, m.data[i]);
            if (m.data[i]->kind == AST_BAD_STMT) {
                (*bad)++;
                checks++;
                if (strncmp(m.data[i]->u.bad.error, "m.py:", 5)) failures++;
            }
        }
        sb_free(&sb);
        (*ok)++;
    }
    ctx_done(&ctx);
}

static void test_fuzz(void) {
    Arena a = {0};
    const char *files[] = {"gemm.py", "realworld.py", "attention.py"};
    int ok = 0, failed = 0, bad = 0, per_file = 1500;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        size_t len;
        char *text = read_corpus(&a, files[f], &len);
        if (!text) continue;
        size_t cap = len + 64;
        char *buf = malloc(cap);
        for (int i = 0; i < per_file; i++) {
            memcpy(buf, text, len + 1);
            size_t n = mutate(buf, len, cap);
            if (i % 8 == 0) n = rng() % (n + 1); /* truncated files */
            buf[n] = 0;
            fuzz_one(buf, n, &ok, &failed, &bad);
        }
        free(buf);
    }
    if (getenv("TEST_PARSE_VERBOSE"))
        printf("fuzz: %d parsed (%d bad statements), %d failed cleanly\n", ok, bad, failed);
    CHECK(ok > 0 && failed > 0 && bad > 0, "fuzz outcomes: %d parsed, %d failed, %d bad stmts", ok,
          failed, bad);
    /* random soup of string-ish characters: the f-string scanner's corner cases */
    static const char soup[] = "f'\"{}:!\\\n rb[]()x=#N";
    char sbuf[64];
    for (int i = 0; i < 5000; i++) {
        size_t n = rng() % 40;
        for (size_t k = 0; k < n; k++) sbuf[k] = soup[rng() % (sizeof soup - 1)];
        sbuf[n] = 0;
        fuzz_one(sbuf, n, &ok, &failed, &bad);
    }
    /* expression mutants through parse_expression */
    const char *exprs = "T.gemm(A_s[i, 0:32], B[::2, ...], C, transpose_B=True, **kw) if "
                        "not a else [x ** -2 for x in (1, 2.5e3, 'a' f'{b}')][-1]";
    size_t elen = strlen(exprs);
    char buf[512];
    for (int i = 0; i < 2000; i++) {
        memcpy(buf, exprs, elen + 1);
        size_t n = mutate(buf, elen, sizeof buf);
        Ctx ctx = {0};
        Source src = {"e", buf, n};
        Ast *e;
        if (!try_expression(&ctx, &src, &e))
            CHECK(ctx.err.buf && !strncmp(ctx.err.buf, "e:", 2), "%s", ctx.err.buf);
        ctx_done(&ctx);
    }
    arena_free(&a);
}

/* ---- main --------------------------------------------------------------------------- */

static int dump_file(const char *path) {
    Ctx ctx = {0};
    size_t len;
    char *text = read_file_arena(&ctx.arena, path, SIZE_MAX, &len);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    Source src = {path, text, len};
    AstList m;
    if (!try_module(&ctx, &src, &m)) {
        printf("FATAL %s", ctx.err.buf);
        ctx_done(&ctx);
        return 1;
    }
    for (int i = 0; i < m.len; i++) {
        StrBuf sb = {0};
        dump_stmt(&sb, m.data[i]);
        printf("%d:%d %s\n", m.data[i]->loc.line, m.data[i]->loc.col, sb.buf);
        if (m.data[i]->kind == AST_BAD_STMT) printf("%s", m.data[i]->u.bad.error);
        sb_free(&sb);
    }
    ctx_done(&ctx);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--dump")) {
        dump_locs = argc >= 4 && !strcmp(argv[2], "--locs");
        dump_fstring_text = false;
        return dump_file(argv[argc - 1]);
    }
    corpus_locate(argv[0]);
    test_lex_shapes();
    test_lex_values();
    test_lex_errors();
    test_expressions();
    test_expression_locs();
    test_statements();
    test_statement_locs();
    test_bad_statements();
    test_recovery();
    test_depth();
    test_corpus_gemm();
    test_corpus_realworld();
    test_corpus_all();
    test_fuzz();
    printf("test_parse: %d checks passed", checks - failures);
    if (failures) printf(", %d FAILED", failures);
    printf("\n");
    return failures ? 1 : 0;
}
