/* parse.c - recursive-descent parser for the Python subset (contract in ast.h).
 *
 * One function per grammar rule, Python's precedence: lambda < ifexp < or < and < not <
 * comparisons < | < ^ < & < shifts < + - < * / // % @ < unary < ** < primary. The binary
 * levels share one precedence-climbing function. Every construct that recurses on its own
 * input (brackets, unary operators, `**`, lambda and conditional chains, blocks) goes
 * through parse_enter(), which caps the nesting at PARSE_MAX_DEPTH with a clean error, so
 * no input can exhaust the stack. The token array always ends with EOF and the parser
 * never moves past it, so no input reads beyond the array.
 *
 * Errors: while a top-level statement is parsed, parse_fail() formats the error and
 * longjmps back to parse_module(), which turns the statement into AST_BAD_STMT and resumes
 * at the next line that starts at column 1. Outside that (parse_expression) it calls
 * ctx_fail. All state lives in arena memory, so nothing is lost by the longjmp. */
#include <limits.h>
#include <setjmp.h>
#include <string.h>

#include "frontend/ast.h"

enum { PARSE_MAX_DEPTH = 200 };

typedef struct Parser {
    Ctx *ctx;
    Token *toks;
    int ntoks, pos, depth;
    jmp_buf *recover;     /* set while a top-level statement is parsed */
    const char *err_text; /* formatted error of the statement that failed */
    int err_pos;          /* token index at the failure */
} Parser;

#define PUSH(P, v, x) VEC_PUSH(&(P)->ctx->arena, v, x)

static Ast *parse_expr(Parser *P);
static Ast *parse_or(Parser *P);
static Ast *parse_binary(Parser *P, int minprec);
static Ast *parse_unary(Parser *P);
static Ast *parse_star_or_expr(Parser *P);
static Ast *parse_exprlist(Parser *P);
static Ast *parse_target_list(Parser *P);
static void parse_stmt(Parser *P, AstList *out);

/* ---- tokens ----------------------------------------------------------------------- */

static Token *peek(Parser *P) { return &P->toks[P->pos]; }

static Token *peek_at(Parser *P, int k) {
    int i = P->pos + k;
    return &P->toks[i < P->ntoks ? i : P->ntoks - 1];
}

static Token *advance(Parser *P) {
    Token *t = &P->toks[P->pos];
    if (t->kind != TOK_EOF) P->pos++;
    return t;
}

static bool tok_is(const Token *t, TokKind kind, const char *text) {
    return t->kind == kind && !strcmp(t->text, text);
}

static bool at_op(Parser *P, const char *op) { return tok_is(peek(P), TOK_OP, op); }
static bool at_kw(Parser *P, const char *kw) { return tok_is(peek(P), TOK_KEYWORD, kw); }

static bool accept_op(Parser *P, const char *op) {
    if (!at_op(P, op)) return false;
    advance(P);
    return true;
}

static bool accept_kw(Parser *P, const char *kw) {
    if (!at_kw(P, kw)) return false;
    advance(P);
    return true;
}

static bool tok_starts_expr(const Token *t) {
    static const char *const kws[] = {"not", "lambda", "True", "False", "None", "await", "yield"};
    static const char *const ops[] = {"(", "[", "{", "-", "+", "~", "*", "..."};
    switch (t->kind) {
    case TOK_NAME:
    case TOK_INT:
    case TOK_FLOAT:
    case TOK_STRING: return true;
    case TOK_KEYWORD:
        for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
            if (!strcmp(t->text, kws[i])) return true;
        return false;
    case TOK_OP:
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (!strcmp(t->text, ops[i])) return true;
        return false;
    default: return false;
    }
}

static const char *tok_describe(Parser *P, const Token *t) {
    Arena *a = &P->ctx->arena;
    switch (t->kind) {
    case TOK_NAME: return arena_printf(a, "name '%s'", t->text);
    case TOK_KEYWORD: return arena_printf(a, "keyword '%s'", t->text);
    case TOK_OP: return arena_printf(a, "'%s'", t->text);
    case TOK_INT:
    case TOK_FLOAT: return arena_printf(a, "number %s", t->text);
    case TOK_STRING: return "string literal";
    case TOK_NEWLINE: return "end of line";
    case TOK_INDENT: return "an indented line";
    case TOK_DEDENT: return "the end of the indented block";
    case TOK_EOF: return "end of file";
    }
    return "a token";
}

/* ---- errors and nesting ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4))) static _Noreturn void parse_fail(Parser *P, Loc loc,
                                                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (!P->recover) ctx_vfail(P->ctx, loc, fmt, ap);
    StrBuf msg = {0}, full = {0};
    sb_vprintf(&msg, fmt, ap);
    va_end(ap);
    loc_format(&full, loc, "error", msg.buf);
    P->err_text = arena_strndup(&P->ctx->arena, full.buf, full.len);
    sb_free(&msg);
    sb_free(&full);
    P->err_pos = P->pos;
    longjmp(*P->recover, 1);
}

/* The current token cannot continue the construct; say why as precisely as we can. */
static _Noreturn void parse_unexpected(Parser *P, const char *expected) {
    Token *t = peek(P);
    if (t->kind == TOK_INDENT) parse_fail(P, t->loc, "unexpected indent");
    if (tok_is(t, TOK_OP, ":="))
        parse_fail(P, t->loc, "assignment expressions (:=) are not supported");
    if (tok_is(t, TOK_KEYWORD, "yield") || tok_is(t, TOK_KEYWORD, "await"))
        parse_fail(P, t->loc, "'%s' is not supported", t->text);
    if (expected) parse_fail(P, t->loc, "expected %s, found %s", expected, tok_describe(P, t));
    parse_fail(P, t->loc, "invalid syntax: unexpected %s", tok_describe(P, t));
}

static Token *expect_op(Parser *P, const char *op) {
    if (!at_op(P, op)) parse_unexpected(P, arena_printf(&P->ctx->arena, "'%s'", op));
    return advance(P);
}

static Token *expect_kw(Parser *P, const char *kw) {
    if (!at_kw(P, kw)) parse_unexpected(P, arena_printf(&P->ctx->arena, "'%s'", kw));
    return advance(P);
}

static const char *expect_name(Parser *P, const char *what) {
    if (peek(P)->kind != TOK_NAME) parse_unexpected(P, what);
    return advance(P)->text;
}

static void parse_enter(Parser *P) {
    if (++P->depth > PARSE_MAX_DEPTH)
        parse_fail(P, peek(P)->loc,
                   "too deeply nested (more than %d levels of brackets, "
                   "operators or blocks)",
                   PARSE_MAX_DEPTH);
}

static void parse_leave(Parser *P) { P->depth--; }

static Ast *mk(Parser *P, AstKind kind, Loc loc) {
    Ast *a = NEW(&P->ctx->arena, Ast);
    a->kind = kind;
    a->loc = loc;
    return a;
}

static Ast *mk_name(Parser *P, const char *name, Loc loc) {
    Ast *a = mk(P, AST_NAME, loc);
    a->u.name = name;
    return a;
}

/* ---- targets ---------------------------------------------------------------------- */

static const char *expr_describe(const Ast *e) {
    switch (e->kind) {
    case AST_CALL: return "a function call";
    case AST_INT:
    case AST_FLOAT:
    case AST_STR:
    case AST_TRUE:
    case AST_FALSE:
    case AST_NONE:
    case AST_ELLIPSIS: return "a literal";
    case AST_COMPARE: return "a comparison";
    case AST_LAMBDA: return "a lambda";
    case AST_IFEXP: return "a conditional expression";
    case AST_LISTCOMP: return "a comprehension";
    case AST_DICT: return "a dict display";
    case AST_STARRED: return "a starred expression";
    case AST_SLICE: return "a slice";
    case AST_TUPLE: return "a tuple";
    case AST_LIST: return "a list";
    default: return "an expression";
    }
}

/* Targets are names, attributes, subscripts, and tuples/lists (with one starred) of them. */
static void check_target(Parser *P, const Ast *t, bool del) {
    switch (t->kind) {
    case AST_NAME:
    case AST_ATTR:
    case AST_SUBSCRIPT: return;
    case AST_TUPLE:
    case AST_LIST:
        for (int i = 0; i < t->u.elts.len; i++) check_target(P, t->u.elts.data[i], del);
        return;
    case AST_STARRED:
        if (!del) {
            check_target(P, t->u.starred.value, del);
            return;
        }
        break;
    default: break;
    }
    parse_fail(P, t->loc, "cannot %s %s", del ? "delete" : "assign to", expr_describe(t));
}

/* ---- atoms ------------------------------------------------------------------------ */

/* Adjacent string literals form one STR; f-string-ness is sticky. */
static Ast *parse_strings(Parser *P) {
    for (int i = P->pos; P->toks[i].kind == TOK_STRING; i++)
        if (P->toks[i].error) parse_fail(P, P->toks[i].loc, "%s", P->toks[i].error);
    Token *first = advance(P);
    Ast *a = mk(P, AST_STR, first->loc);
    a->u.str.value = first->text;
    a->u.str.fstring = first->fstring;
    if (peek(P)->kind != TOK_STRING) return a;
    StrBuf sb = {0};
    sb_puts(&sb, first->text);
    while (peek(P)->kind == TOK_STRING) {
        Token *t = advance(P);
        sb_puts(&sb, t->text);
        a->u.str.fstring |= t->fstring;
    }
    a->u.str.value = arena_strndup(&P->ctx->arena, sb.buf, sb.len);
    sb_free(&sb);
    return a;
}

/* `for target in iter [if cond]...` clauses after elt; extra for-clauses go to `more`. */
static Ast *parse_comprehension(Parser *P, Ast *elt, Loc loc, bool generator) {
    if (elt->kind == AST_STARRED)
        parse_fail(P, elt->loc, "iterable unpacking cannot be used in a comprehension");
    Ast *c = mk(P, AST_LISTCOMP, loc), *clause = c;
    c->u.listcomp.elt = elt;
    c->u.listcomp.generator = generator;
    for (;;) {
        if (at_kw(P, "async")) parse_fail(P, peek(P)->loc, "'async for' is not supported");
        expect_kw(P, "for");
        clause->u.listcomp.target = parse_target_list(P);
        expect_kw(P, "in");
        clause->u.listcomp.iter = parse_or(P);
        while (accept_kw(P, "if")) PUSH(P, clause->u.listcomp.ifs, parse_or(P));
        if (!at_kw(P, "for") && !at_kw(P, "async")) return c;
        clause = mk(P, AST_LISTCOMP, peek(P)->loc);
        PUSH(P, c->u.listcomp.more, clause);
    }
}

/* After the first element: `, elt`... up to (not including) the closer. */
static void parse_seq_rest(Parser *P, AstList *elts, const char *closer) {
    while (accept_op(P, ",")) {
        if (at_op(P, closer)) return;
        PUSH(P, *elts, parse_star_or_expr(P));
    }
}

static Ast *parse_paren(Parser *P) {
    Token *open = advance(P);
    parse_enter(P);
    Ast *r;
    if (at_op(P, ")")) {
        r = mk(P, AST_TUPLE, open->loc);
    } else {
        Ast *first = parse_star_or_expr(P);
        if (at_kw(P, "for")) {
            r = parse_comprehension(P, first, open->loc, true);
        } else if (at_op(P, ",")) {
            r = mk(P, AST_TUPLE, open->loc);
            PUSH(P, r->u.elts, first);
            parse_seq_rest(P, &r->u.elts, ")");
        } else {
            if (first->kind == AST_STARRED)
                parse_fail(P, first->loc, "cannot use a starred expression here");
            r = first;
        }
    }
    expect_op(P, ")");
    parse_leave(P);
    return r;
}

static Ast *parse_list(Parser *P) {
    Token *open = advance(P);
    parse_enter(P);
    Ast *r = mk(P, AST_LIST, open->loc);
    if (!at_op(P, "]")) {
        Ast *first = parse_star_or_expr(P);
        if (at_kw(P, "for")) {
            r = parse_comprehension(P, first, open->loc, false);
        } else {
            PUSH(P, r->u.elts, first);
            parse_seq_rest(P, &r->u.elts, "]");
        }
    }
    expect_op(P, "]");
    parse_leave(P);
    return r;
}

/* `name(arg)` as a node of its own (set and dict comprehensions are built this way). */
static Ast *mk_call1(Parser *P, const char *fname, Ast *arg, Loc loc) {
    Ast *c = mk(P, AST_CALL, loc);
    c->u.call.func = mk_name(P, fname, loc);
    AstArg a = {.value = arg, .loc = arg->loc};
    PUSH(P, c->u.call.args, a);
    return c;
}

/* {k: v for ...} is dict(<generator of (k, v) tuples>). */
static Ast *parse_dictcomp(Parser *P, Loc loc, Ast *key, Ast *value) {
    Ast *pair = mk(P, AST_TUPLE, key->loc);
    PUSH(P, pair->u.elts, key);
    PUSH(P, pair->u.elts, value);
    return mk_call1(P, "dict", parse_comprehension(P, pair, loc, true), loc);
}

static Ast *parse_dict_rest(Parser *P, Loc loc, Ast *key) {
    Ast *d = mk(P, AST_DICT, loc);
    for (;;) {
        Ast *value;
        if (!key && accept_op(P, "**")) {
            value = parse_binary(P, 1);
        } else {
            if (!key) key = parse_expr(P);
            expect_op(P, ":");
            value = parse_expr(P);
            if (at_kw(P, "for") && d->u.dict.keys.len == 0)
                return parse_dictcomp(P, loc, key, value);
        }
        PUSH(P, d->u.dict.keys, key);
        PUSH(P, d->u.dict.values, value);
        key = NULL;
        if (!accept_op(P, ",") || at_op(P, "}")) return d;
    }
}

/* {a, b} is set([a, b]); {x for ...} is set(<generator>). */
static Ast *parse_set_rest(Parser *P, Loc loc, Ast *first) {
    if (at_kw(P, "for")) return mk_call1(P, "set", parse_comprehension(P, first, loc, true), loc);
    Ast *list = mk(P, AST_LIST, loc);
    PUSH(P, list->u.elts, first);
    parse_seq_rest(P, &list->u.elts, "}");
    return mk_call1(P, "set", list, loc);
}

static Ast *parse_braces(Parser *P) {
    Token *open = advance(P);
    parse_enter(P);
    Ast *r;
    if (at_op(P, "}")) {
        r = mk(P, AST_DICT, open->loc);
    } else if (at_op(P, "**")) {
        r = parse_dict_rest(P, open->loc, NULL);
    } else {
        Ast *first = parse_star_or_expr(P);
        if (at_op(P, ":") && first->kind != AST_STARRED) r = parse_dict_rest(P, open->loc, first);
        else r = parse_set_rest(P, open->loc, first);
    }
    expect_op(P, "}");
    parse_leave(P);
    return r;
}

static Ast *parse_atom(Parser *P) {
    Token *t = peek(P);
    switch (t->kind) {
    case TOK_NAME: return mk_name(P, advance(P)->text, t->loc);
    case TOK_INT:
    case TOK_FLOAT: {
        if (t->error) parse_fail(P, t->loc, "%s", t->error);
        Ast *a = mk(P, t->kind == TOK_INT ? AST_INT : AST_FLOAT, advance(P)->loc);
        if (t->kind == TOK_INT) a->u.ival = t->ival;
        else a->u.fval = t->fval;
        return a;
    }
    case TOK_STRING: return parse_strings(P);
    case TOK_KEYWORD:
        if (!strcmp(t->text, "True")) return mk(P, AST_TRUE, advance(P)->loc);
        if (!strcmp(t->text, "False")) return mk(P, AST_FALSE, advance(P)->loc);
        if (!strcmp(t->text, "None")) return mk(P, AST_NONE, advance(P)->loc);
        break;
    case TOK_OP:
        if (!strcmp(t->text, "(")) return parse_paren(P);
        if (!strcmp(t->text, "[")) return parse_list(P);
        if (!strcmp(t->text, "{")) return parse_braces(P);
        if (!strcmp(t->text, "...")) return mk(P, AST_ELLIPSIS, advance(P)->loc);
        break;
    default: break;
    }
    parse_unexpected(P, "an expression");
}

/* ---- primaries: attributes, calls, subscripts ---------------------------------------- */

/* Arguments after '(' up to and including ')'. */
static void parse_call_args(Parser *P, Ast *call) {
    bool seen_keyword = false;
    while (!at_op(P, ")")) {
        Token *t = peek(P);
        AstArg arg = {.loc = t->loc};
        if (accept_op(P, "*")) {
            arg.star = 1;
        } else if (accept_op(P, "**")) {
            arg.star = 2;
            seen_keyword = true;
        } else if (t->kind == TOK_NAME && tok_is(peek_at(P, 1), TOK_OP, "=")) {
            arg.name = t->text;
            P->pos += 2;
            seen_keyword = true;
        } else if (seen_keyword) {
            parse_fail(P, t->loc, "positional argument follows keyword argument");
        }
        arg.value = parse_expr(P);
        if (!arg.star && !arg.name && at_kw(P, "for")) {
            arg.value = parse_comprehension(P, arg.value, arg.value->loc, true);
            if (call->u.call.args.len || !at_op(P, ")"))
                parse_fail(P, arg.loc, "a generator expression must be parenthesized here");
        }
        PUSH(P, call->u.call.args, arg);
        if (!accept_op(P, ",")) break;
    }
    expect_op(P, ")");
}

/* One subscript element: an expression, a slice `lo:hi:step` (parts optional), or `*x`. */
static Ast *parse_slice_item(Parser *P) {
    Loc loc = peek(P)->loc;
    if (at_op(P, "*")) return parse_star_or_expr(P);
    Ast *lower = NULL;
    if (!at_op(P, ":")) {
        lower = parse_expr(P);
        if (!at_op(P, ":")) return lower;
    }
    Ast *s = mk(P, AST_SLICE, loc);
    s->u.slice.lower = lower;
    advance(P);
    if (!at_op(P, ":") && !at_op(P, ",") && !at_op(P, "]")) s->u.slice.upper = parse_expr(P);
    if (accept_op(P, ":") && !at_op(P, ",") && !at_op(P, "]")) s->u.slice.step = parse_expr(P);
    return s;
}

static Ast *parse_subscript(Parser *P, Ast *value, Loc start) {
    advance(P);
    parse_enter(P);
    Loc loc = peek(P)->loc;
    Ast *index = parse_slice_item(P);
    if (at_op(P, ",") || index->kind == AST_STARRED) {
        Ast *tuple = mk(P, AST_TUPLE, loc);
        PUSH(P, tuple->u.elts, index);
        while (accept_op(P, ",") && !at_op(P, "]")) PUSH(P, tuple->u.elts, parse_slice_item(P));
        index = tuple;
    }
    expect_op(P, "]");
    parse_leave(P);
    Ast *s = mk(P, AST_SUBSCRIPT, start);
    s->u.subscript.value = value;
    s->u.subscript.index = index;
    return s;
}

static Ast *parse_primary(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *e = parse_atom(P);
    for (;;) {
        if (accept_op(P, ".")) {
            Ast *a = mk(P, AST_ATTR, start);
            a->u.attr.value = e;
            a->u.attr.attr = expect_name(P, "an attribute name after '.'");
            e = a;
        } else if (at_op(P, "(")) {
            advance(P);
            parse_enter(P);
            Ast *c = mk(P, AST_CALL, start);
            c->u.call.func = e;
            parse_call_args(P, c);
            parse_leave(P);
            e = c;
        } else if (at_op(P, "[")) {
            e = parse_subscript(P, e, start);
        } else {
            return e;
        }
    }
}

/* ---- operators -------------------------------------------------------------------- */

static Ast *mk_binary(Parser *P, Loc loc, const char *op, Ast *left, Ast *right) {
    Ast *b = mk(P, AST_BINARY, loc);
    b->u.binary.op = op;
    b->u.binary.left = left;
    b->u.binary.right = right;
    return b;
}

static Ast *parse_power(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *base = parse_primary(P);
    if (!at_op(P, "**")) return base;
    Token *op = advance(P);
    parse_enter(P);
    Ast *exponent = parse_unary(P);
    parse_leave(P);
    return mk_binary(P, start, op->text, base, exponent);
}

static Ast *parse_unary(Parser *P) {
    Token *t = peek(P);
    if (!tok_is(t, TOK_OP, "-") && !tok_is(t, TOK_OP, "+") && !tok_is(t, TOK_OP, "~"))
        return parse_power(P);
    advance(P);
    parse_enter(P);
    Ast *u = mk(P, AST_UNARY, t->loc);
    u->u.unary.op = t->text;
    u->u.unary.operand = parse_unary(P);
    parse_leave(P);
    return u;
}

/* Binding power of a binary operator token; 0 if it is none. */
static int binop_prec(const Token *t) {
    static const struct {
        const char *op;
        int prec;
    } tab[] = {
        {"|", 1}, {"^", 2}, {"&", 3}, {"<<", 4}, {">>", 4}, {"+", 5},
        {"-", 5}, {"*", 6}, {"/", 6}, {"//", 6}, {"%", 6},  {"@", 6},
    };
    if (t->kind != TOK_OP) return 0;
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(t->text, tab[i].op)) return tab[i].prec;
    return 0;
}

/* Precedence climbing over | ^ & shifts + - * / // % @ (all left-associative). The
 * recursion is bounded by the number of levels (6); operands recurse via parse_enter. */
static Ast *parse_binary(Parser *P, int minprec) {
    Loc start = peek(P)->loc;
    Ast *left = parse_unary(P);
    for (;;) {
        int prec = binop_prec(peek(P));
        if (prec == 0 || prec < minprec) return left;
        Token *op = advance(P);
        Ast *right = parse_binary(P, prec + 1);
        left = mk_binary(P, start, op->text, left, right);
    }
}

/* The comparison operator at the current token (and how many tokens it spans). */
static const char *comp_op(Parser *P, int *ntok) {
    static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!="};
    Token *t = peek(P);
    *ntok = 1;
    if (t->kind == TOK_OP) {
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (!strcmp(t->text, ops[i])) return ops[i];
        return NULL;
    }
    if (tok_is(t, TOK_KEYWORD, "in")) return "in";
    bool next_not = tok_is(peek_at(P, 1), TOK_KEYWORD, "not");
    if (tok_is(t, TOK_KEYWORD, "is")) return (*ntok = next_not ? 2 : 1) == 2 ? "is not" : "is";
    if (tok_is(t, TOK_KEYWORD, "not") && tok_is(peek_at(P, 1), TOK_KEYWORD, "in")) {
        *ntok = 2;
        return "not in";
    }
    return NULL;
}

static Ast *parse_comparison(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *left = parse_binary(P, 1);
    int n;
    const char *op = comp_op(P, &n);
    if (!op) return left;
    Ast *c = mk(P, AST_COMPARE, start);
    c->u.compare.left = left;
    for (; op; op = comp_op(P, &n)) {
        P->pos += n; /* the operator tokens exist: none of them is EOF */
        PUSH(P, c->u.compare.ops, op);
        PUSH(P, c->u.compare.comparators, parse_binary(P, 1));
    }
    return c;
}

static Ast *parse_not(Parser *P) {
    Token *t = peek(P);
    if (!tok_is(t, TOK_KEYWORD, "not")) return parse_comparison(P);
    advance(P);
    parse_enter(P);
    Ast *u = mk(P, AST_UNARY, t->loc);
    u->u.unary.op = "not";
    u->u.unary.operand = parse_not(P);
    parse_leave(P);
    return u;
}

static Ast *parse_and(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *first = parse_not(P);
    if (!at_kw(P, "and")) return first;
    Ast *b = mk(P, AST_BOOLOP, start);
    b->u.boolop.op = "and";
    PUSH(P, b->u.boolop.values, first);
    while (accept_kw(P, "and")) PUSH(P, b->u.boolop.values, parse_not(P));
    return b;
}

static Ast *parse_or(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *first = parse_and(P);
    if (!at_kw(P, "or")) return first;
    Ast *b = mk(P, AST_BOOLOP, start);
    b->u.boolop.op = "or";
    PUSH(P, b->u.boolop.values, first);
    while (accept_kw(P, "or")) PUSH(P, b->u.boolop.values, parse_and(P));
    return b;
}

/* Parameters up to (not including) closer: `a`, `a: ann`, `a=default`, `*`, `*args`,
 * `**kw`, `/` (dropped). Annotations only for def. Bare `*` gives name NULL, star 1. */
static void parse_params(Parser *P, AstArgList *out, const char *closer, bool annotations) {
    bool seen_default = false, seen_star = false, seen_kwargs = false;
    while (!at_op(P, closer)) {
        Token *t = peek(P);
        AstArg a = {.loc = t->loc};
        if (seen_kwargs)
            parse_fail(P, t->loc, "no parameter may follow **%s", out->data[out->len - 1].name);
        if (accept_op(P, "/")) {
            if (seen_star || out->len == 0) parse_fail(P, t->loc, "'/' is not allowed here");
            if (!accept_op(P, ",")) break;
            continue;
        }
        a.star = accept_op(P, "*") ? 1 : accept_op(P, "**") ? 2 : 0;
        if (a.star == 1 && seen_star) parse_fail(P, t->loc, "* may appear only once");
        seen_star |= a.star == 1;
        seen_kwargs |= a.star == 2;
        if (a.star != 1 || peek(P)->kind == TOK_NAME) {
            a.loc = peek(P)->loc;
            a.name = expect_name(P, "a parameter name");
            if (annotations && accept_op(P, ":")) /* `*args: *Ts` (PEP 646) */
                a.annotation = a.star == 1 ? parse_star_or_expr(P) : parse_expr(P);
        } else if (at_op(P, closer) || tok_is(peek_at(P, 1), TOK_OP, closer)) {
            parse_fail(P, t->loc, "named parameters must follow a bare *");
        }
        if (!a.star && accept_op(P, "=")) {
            a.value = parse_expr(P);
            seen_default = true;
        } else if (!a.star && seen_default && !seen_star) {
            parse_fail(P, a.loc, "a parameter without a default follows one with a default");
        }
        PUSH(P, *out, a);
        if (!accept_op(P, ",")) break;
    }
}

static Ast *parse_lambda(Parser *P) {
    Token *kw = advance(P);
    Ast *l = mk(P, AST_LAMBDA, kw->loc);
    parse_enter(P); /* defaults and the body may hold lambdas */
    parse_params(P, &l->u.lambda.params, ":", false);
    expect_op(P, ":");
    l->u.lambda.body = parse_expr(P);
    parse_leave(P);
    return l;
}

/* expression: lambda | or ['if' or 'else' expression] */
static Ast *parse_expr(Parser *P) {
    if (at_kw(P, "lambda")) return parse_lambda(P);
    Loc start = peek(P)->loc;
    Ast *e = parse_or(P);
    if (!accept_kw(P, "if")) return e;
    Ast *x = mk(P, AST_IFEXP, start);
    x->u.ifexp.then = e;
    x->u.ifexp.cond = parse_or(P);
    expect_kw(P, "else");
    parse_enter(P);
    x->u.ifexp.orelse = parse_expr(P);
    parse_leave(P);
    return x;
}

static Ast *parse_star_or_expr(Parser *P) {
    if (!at_op(P, "*")) return parse_expr(P);
    Token *star = advance(P);
    Ast *s = mk(P, AST_STARRED, star->loc);
    s->u.starred.value = parse_binary(P, 1);
    return s;
}

/* Expressions separated by commas: one expression, or a TUPLE (trailing comma allowed). */
static Ast *parse_exprlist(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *first = parse_star_or_expr(P);
    if (!at_op(P, ",")) {
        if (first->kind == AST_STARRED)
            parse_fail(P, first->loc, "cannot use a starred expression here");
        return first;
    }
    Ast *t = mk(P, AST_TUPLE, start);
    PUSH(P, t->u.elts, first);
    while (accept_op(P, ",") && tok_starts_expr(peek(P))) PUSH(P, t->u.elts, parse_star_or_expr(P));
    return t;
}

/* Assignment-style targets of `for`: bitwise-or level items, TUPLE if commas. */
static Ast *parse_target_list(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *first = at_op(P, "*") ? parse_star_or_expr(P) : parse_binary(P, 1), *t = first;
    if (at_op(P, ",")) {
        t = mk(P, AST_TUPLE, start);
        PUSH(P, t->u.elts, first);
        while (accept_op(P, ",") && tok_starts_expr(peek(P)))
            PUSH(P, t->u.elts, at_op(P, "*") ? parse_star_or_expr(P) : parse_binary(P, 1));
    }
    check_target(P, t, false);
    return t;
}

/* ---- simple statements ----------------------------------------------------------- */

static bool is_augassign(const Token *t) {
    static const char *const ops[] = {"+=",  "-=",  "*=", "/=", "//=", "%=", "**=",
                                      ">>=", "<<=", "&=", "|=", "^=",  "@="};
    if (t->kind != TOK_OP) return false;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(t->text, ops[i])) return true;
    return false;
}

static Ast *parse_assign(Parser *P, Loc start, Ast *first) {
    Ast *s = mk(P, AST_ASSIGN, start), *value = first;
    while (accept_op(P, "=")) {
        check_target(P, value, false);
        PUSH(P, s->u.assign.targets, value);
        value = parse_exprlist(P);
    }
    s->u.assign.value = value;
    return s;
}

static bool is_single_target(const Ast *e) {
    return e->kind == AST_NAME || e->kind == AST_ATTR || e->kind == AST_SUBSCRIPT;
}

static Ast *parse_expr_stmt(Parser *P) {
    Loc start = peek(P)->loc;
    Ast *first = parse_exprlist(P);
    if (at_op(P, "=")) return parse_assign(P, start, first);
    if (accept_op(P, ":")) {
        if (!is_single_target(first))
            parse_fail(P, first->loc, "only a name, attribute or subscript can be annotated");
        Ast *s = mk(P, AST_ANNASSIGN, start);
        s->u.annassign.target = first;
        s->u.annassign.annotation = parse_expr(P);
        if (accept_op(P, "=")) s->u.annassign.value = parse_exprlist(P);
        return s;
    }
    if (is_augassign(peek(P))) {
        if (!is_single_target(first))
            parse_fail(P, first->loc, "cannot use augmented assignment on %s",
                       expr_describe(first));
        Ast *s = mk(P, AST_AUGASSIGN, start);
        s->u.augassign.op = advance(P)->text;
        s->u.augassign.target = first;
        s->u.augassign.value = parse_exprlist(P);
        return s;
    }
    Ast *s = mk(P, AST_EXPR_STMT, start);
    s->u.expr_stmt.value = first;
    return s;
}

/* A dotted module name a.b.c, built in one allocation (linear in its length). */
static const char *parse_dotted(Parser *P) {
    if (peek(P)->kind != TOK_NAME) parse_unexpected(P, "a module name");
    size_t len = 0;
    int i = P->pos;
    for (;; i += 2) {
        len += strlen(P->toks[i].text) + 1;
        if (!tok_is(&P->toks[i + 1], TOK_OP, ".") || P->toks[i + 2].kind != TOK_NAME) break;
    }
    char *name = arena_alloc(&P->ctx->arena, len), *o = name;
    for (; P->pos <= i; P->pos += 2) {
        size_t n = strlen(P->toks[P->pos].text);
        memcpy(o, P->toks[P->pos].text, n);
        o += n;
        *o++ = P->pos < i ? '.' : 0;
    }
    P->pos = i + 1;
    return name;
}

static Ast *parse_import(Parser *P) {
    Ast *s = mk(P, AST_IMPORT, advance(P)->loc);
    do {
        AstAlias al = {parse_dotted(P), NULL};
        if (accept_kw(P, "as")) al.asname = expect_name(P, "a name after 'as'");
        PUSH(P, s->u.import.names, al);
    } while (accept_op(P, ","));
    return s;
}

static Ast *parse_from(Parser *P) {
    Ast *s = mk(P, AST_IMPORT_FROM, advance(P)->loc);
    for (;;) {
        if (accept_op(P, ".")) s->u.import.level += 1;
        else if (accept_op(P, "...")) s->u.import.level += 3;
        else break;
    }
    if (!at_kw(P, "import") || s->u.import.level == 0) s->u.import.module = parse_dotted(P);
    expect_kw(P, "import");
    if (accept_op(P, "*")) {
        AstAlias al = {"*", NULL};
        PUSH(P, s->u.import.names, al);
        return s;
    }
    bool paren = accept_op(P, "(");
    do {
        if (paren && at_op(P, ")")) break;
        AstAlias al = {expect_name(P, "a name to import"), NULL};
        if (accept_kw(P, "as")) al.asname = expect_name(P, "a name after 'as'");
        PUSH(P, s->u.import.names, al);
    } while (accept_op(P, ","));
    if (paren) expect_op(P, ")");
    return s;
}

static Ast *parse_global(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_GLOBAL, kw->loc);
    s->u.global.nonlocal = !strcmp(kw->text, "nonlocal");
    do PUSH(P, s->u.global.names, expect_name(P, "a name"));
    while (accept_op(P, ","));
    return s;
}

static Ast *parse_del(Parser *P) {
    Ast *s = mk(P, AST_DEL, advance(P)->loc);
    do {
        if (!tok_starts_expr(peek(P)) && s->u.body.len) break;
        Ast *t = parse_binary(P, 1);
        check_target(P, t, true);
        PUSH(P, s->u.body, t);
    } while (accept_op(P, ","));
    return s;
}

/* return [exprs] and raise [exc [from cause]] (the cause is dropped). */
static Ast *parse_return_raise(Parser *P) {
    Token *kw = advance(P);
    bool ret = !strcmp(kw->text, "return");
    Ast *s = mk(P, ret ? AST_RETURN : AST_RAISE, kw->loc);
    if (!tok_starts_expr(peek(P))) return s;
    s->u.expr_stmt.value = ret ? parse_exprlist(P) : parse_expr(P);
    if (!ret && accept_kw(P, "from")) parse_expr(P);
    return s;
}

static Ast *parse_assert(Parser *P) {
    Ast *s = mk(P, AST_ASSERT, advance(P)->loc);
    s->u.assert_.cond = parse_expr(P);
    if (accept_op(P, ",")) s->u.assert_.msg = parse_expr(P);
    return s;
}

static Ast *parse_simple(Parser *P) {
    Token *t = peek(P);
    if (t->kind != TOK_KEYWORD) return parse_expr_stmt(P);
    const char *k = t->text;
    if (!strcmp(k, "pass")) return mk(P, AST_PASS, advance(P)->loc);
    if (!strcmp(k, "break")) return mk(P, AST_BREAK, advance(P)->loc);
    if (!strcmp(k, "continue")) return mk(P, AST_CONTINUE, advance(P)->loc);
    if (!strcmp(k, "return") || !strcmp(k, "raise")) return parse_return_raise(P);
    if (!strcmp(k, "global") || !strcmp(k, "nonlocal")) return parse_global(P);
    if (!strcmp(k, "del")) return parse_del(P);
    if (!strcmp(k, "assert")) return parse_assert(P);
    if (!strcmp(k, "import")) return parse_import(P);
    if (!strcmp(k, "from")) return parse_from(P);
    return parse_expr_stmt(P);
}

/* simple (';' simple)* [';'] NEWLINE */
static void parse_simple_stmts(Parser *P, AstList *out) {
    PUSH(P, *out, parse_simple(P));
    while (accept_op(P, ";") && peek(P)->kind != TOK_NEWLINE) PUSH(P, *out, parse_simple(P));
    if (peek(P)->kind != TOK_NEWLINE) parse_unexpected(P, NULL);
    advance(P);
}

/* ---- compound statements --------------------------------------------------------- */

/* ':' then simple statements on the same line, or NEWLINE INDENT statements DEDENT. */
static AstList parse_block(Parser *P, const char *what, const Token *owner) {
    AstList body = {0};
    expect_op(P, ":");
    if (peek(P)->kind != TOK_NEWLINE) {
        parse_simple_stmts(P, &body);
        return body;
    }
    advance(P);
    if (peek(P)->kind != TOK_INDENT)
        parse_fail(P, peek(P)->loc, "expected an indented block after %s on line %d", what,
                   owner->loc.line);
    advance(P);
    parse_enter(P);
    while (peek(P)->kind != TOK_DEDENT && peek(P)->kind != TOK_EOF) parse_stmt(P, &body);
    advance(P);
    parse_leave(P);
    return body;
}

static AstList parse_else(Parser *P) {
    AstList none = {0};
    if (!at_kw(P, "else")) return none;
    Token *kw = advance(P);
    return parse_block(P, "'else'", kw);
}

static Ast *parse_if_clause(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_IF, kw->loc);
    s->u.if_.cond = parse_expr(P);
    s->u.if_.body = parse_block(P, kw->text[0] == 'i' ? "'if' statement" : "'elif' statement", kw);
    return s;
}

/* elif chains nest IFs in orelse, built iteratively. */
static Ast *parse_if(Parser *P) {
    Ast *top = parse_if_clause(P), *cur = top;
    while (at_kw(P, "elif")) {
        Ast *next = parse_if_clause(P);
        PUSH(P, cur->u.if_.orelse, next);
        cur = next;
    }
    cur->u.if_.orelse = parse_else(P);
    return top;
}

static Ast *parse_while(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_WHILE, kw->loc);
    s->u.if_.cond = parse_expr(P);
    s->u.if_.body = parse_block(P, "'while' statement", kw);
    s->u.if_.orelse = parse_else(P);
    return s;
}

static Ast *parse_for(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_FOR, kw->loc);
    s->u.for_.target = parse_target_list(P);
    expect_kw(P, "in");
    s->u.for_.iter = parse_exprlist(P);
    s->u.for_.body = parse_block(P, "'for' statement", kw);
    s->u.for_.orelse = parse_else(P);
    return s;
}

/* The try body is kept; handlers, else and finally are parsed and dropped. */
static Ast *parse_try(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_TRY, kw->loc);
    s->u.body = parse_block(P, "'try' statement", kw);
    bool handled = false;
    while (at_kw(P, "except")) {
        Token *ek = advance(P);
        accept_op(P, "*");
        if (!at_op(P, ":")) {
            parse_exprlist(P);
            if (accept_kw(P, "as")) expect_name(P, "a name after 'as'");
        }
        parse_block(P, "'except' statement", ek);
        handled = true;
    }
    if (handled) parse_else(P);
    if (at_kw(P, "finally")) {
        Token *fk = advance(P);
        parse_block(P, "'finally' statement", fk);
        handled = true;
    }
    if (!handled) parse_unexpected(P, "'except' or 'finally'");
    return s;
}

/* Is the '(' at the current token the start of `with (a as b, c):` - its match then ':'? */
static bool with_parenthesized(Parser *P) {
    int depth = 0;
    for (int i = P->pos; i < P->ntoks && P->toks[i].kind != TOK_EOF; i++) {
        const Token *t = &P->toks[i];
        if (t->kind != TOK_OP) continue;
        if (t->text[1]) continue;
        if (strchr("([{", t->text[0])) depth++;
        if (strchr(")]}", t->text[0]) && --depth == 0) return tok_is(&P->toks[i + 1], TOK_OP, ":");
    }
    return false;
}

static Ast *parse_with(Parser *P) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_WITH, kw->loc);
    bool paren = at_op(P, "(") && with_parenthesized(P);
    if (paren) advance(P);
    do {
        if (paren && at_op(P, ")")) break;
        PUSH(P, s->u.with.items, parse_expr(P));
        Ast *target = NULL;
        if (accept_kw(P, "as")) {
            target = parse_binary(P, 1);
            check_target(P, target, false);
        }
        PUSH(P, s->u.with.targets, target);
    } while (accept_op(P, ","));
    if (paren) expect_op(P, ")");
    s->u.with.body = parse_block(P, "'with' statement", kw);
    return s;
}

static Ast *parse_def(Parser *P, AstList decorators) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_DEF, kw->loc);
    s->u.def.decorators = decorators;
    s->u.def.name = expect_name(P, "a function name");
    if (at_op(P, "[")) parse_fail(P, peek(P)->loc, "type parameter lists are not supported");
    expect_op(P, "(");
    parse_params(P, &s->u.def.params, ")", true);
    expect_op(P, ")");
    if (accept_op(P, "->")) s->u.def.returns = parse_expr(P);
    s->u.def.body = parse_block(P, "function definition", kw);
    return s;
}

static Ast *parse_class(Parser *P, AstList decorators) {
    Token *kw = advance(P);
    Ast *s = mk(P, AST_CLASS, kw->loc);
    s->u.class_.decorators = decorators;
    s->u.class_.name = expect_name(P, "a class name");
    if (at_op(P, "[")) parse_fail(P, peek(P)->loc, "type parameter lists are not supported");
    if (accept_op(P, "(")) {
        Ast call = {.kind = AST_CALL};
        parse_call_args(P, &call);
        for (int i = 0; i < call.u.call.args.len; i++) {
            AstArg *a = &call.u.call.args.data[i];
            if (!a->name && !a->star) PUSH(P, s->u.class_.bases, a->value);
        }
    }
    s->u.class_.body = parse_block(P, "class definition", kw);
    return s;
}

/* Fails past the `async` token, so that recovery never restarts on it. */
static _Noreturn void parse_async(Parser *P) {
    Token *kw = advance(P), *next = peek(P);
    if (tok_is(next, TOK_KEYWORD, "def"))
        parse_fail(P, kw->loc, "async functions are not supported");
    if (tok_is(next, TOK_KEYWORD, "for") || tok_is(next, TOK_KEYWORD, "with"))
        parse_fail(P, kw->loc, "'async %s' is not supported", next->text);
    parse_fail(P, kw->loc, "invalid syntax: unexpected keyword 'async'");
}

static Ast *parse_decorated(Parser *P) {
    AstList decorators = {0};
    while (accept_op(P, "@")) {
        PUSH(P, decorators, parse_expr(P));
        if (peek(P)->kind != TOK_NEWLINE) parse_unexpected(P, "end of line after the decorator");
        advance(P);
    }
    if (at_kw(P, "def")) return parse_def(P, decorators);
    if (at_kw(P, "class")) return parse_class(P, decorators);
    if (at_kw(P, "async")) parse_async(P);
    parse_unexpected(P, "a function or class definition after the decorator");
}

/* `match SUBJECT:` - a logical line that starts with the soft keyword and ends in ':'
 * (no simple statement can end that way). Linear in the length of the line. */
static bool looks_like_match(Parser *P) {
    if (!tok_is(peek(P), TOK_NAME, "match")) return false;
    int i = P->pos + 1;
    while (i < P->ntoks - 1 && P->toks[i].kind != TOK_NEWLINE) i++;
    return i > P->pos + 2 && tok_is(&P->toks[i - 1], TOK_OP, ":");
}

static void parse_stmt(Parser *P, AstList *out) {
    Token *t = peek(P);
    Ast *s = NULL;
    if (t->kind == TOK_KEYWORD) {
        const char *k = t->text;
        if (!strcmp(k, "if")) s = parse_if(P);
        else if (!strcmp(k, "while")) s = parse_while(P);
        else if (!strcmp(k, "for")) s = parse_for(P);
        else if (!strcmp(k, "try")) s = parse_try(P);
        else if (!strcmp(k, "with")) s = parse_with(P);
        else if (!strcmp(k, "def")) s = parse_def(P, (AstList){0});
        else if (!strcmp(k, "class")) s = parse_class(P, (AstList){0});
        else if (!strcmp(k, "async")) parse_async(P);
    } else if (tok_is(t, TOK_OP, "@")) {
        s = parse_decorated(P);
    } else if (looks_like_match(P)) {
        parse_fail(P, t->loc, "match statements are not supported");
    } else if (t->kind != TOK_NAME && !tok_starts_expr(t)) {
        parse_unexpected(P, NULL);
    }
    if (s) PUSH(P, *out, s);
    else parse_simple_stmts(P, out);
}

/* ---- error recovery at top level --------------------------------------------------- */

static bool line_start(const Parser *P, int i) {
    if (i == 0) return true;
    TokKind k = P->toks[i - 1].kind;
    return k == TOK_NEWLINE || k == TOK_INDENT || k == TOK_DEDENT;
}

/* Does the token continue a compound statement (else/elif/except/finally)? */
static bool continues_statement(const Token *t) {
    static const char *const kws[] = {"else", "elif", "except", "finally"};
    for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
        if (tok_is(t, TOK_KEYWORD, kws[i])) return true;
    return false;
}

/* First token at or after `target` that starts a new statement at the indentation of
 * `start` (a line there that starts with else/elif/except/finally still belongs to it). */
static int skip_statement(const Parser *P, int start, int target) {
    int depth = 0;
    for (int i = start; i < P->ntoks; i++) {
        const Token *t = &P->toks[i];
        if (t->kind == TOK_EOF) return i;
        if (t->kind == TOK_INDENT) depth++;
        else if (t->kind == TOK_DEDENT) depth--;
        else if (i >= target && depth <= 0 && t->kind != TOK_NEWLINE && line_start(P, i) &&
                 !continues_statement(t))
            return i;
    }
    return P->ntoks - 1;
}

static void bind(Parser *P, Ast *bad, const Token *t) {
    if (t->kind == TOK_NAME) PUSH(P, bad->u.bad.binds, t->text);
}

static int match_bracket(const Parser *P, int i, int end) {
    int depth = 0;
    for (; i < end; i++) {
        const Token *t = &P->toks[i];
        if (t->kind != TOK_OP || t->text[1]) continue;
        if (strchr("([{", t->text[0])) depth++;
        if (strchr(")]}", t->text[0]) && --depth == 0) return i;
    }
    return end;
}

/* Scan an assignment target group (names, commas, brackets, '*'); with bad != NULL, bind
 * the plain names in it (not the bases of subscripts or calls). Returns where it ends. */
static int target_group(Parser *P, Ast *bad, int i, int end) {
    for (; i < end; i++) {
        const Token *t = &P->toks[i];
        bool base = i + 1 < end && (tok_is(&t[1], TOK_OP, "[") || tok_is(&t[1], TOK_OP, "("));
        if (t->kind == TOK_NAME && base) {
            i = match_bracket(P, i + 1, end);
        } else if (t->kind == TOK_NAME) {
            if (bad) bind(P, bad, t);
        } else if (t->kind != TOK_OP || !strchr(",()[]*", t->text[0]) || t->text[1]) {
            break;
        }
    }
    return i < end ? i : end;
}

static void bind_assignment(Parser *P, Ast *bad, int i, int end) {
    for (bool first = true;; first = false) {
        int e = target_group(P, NULL, i, end);
        if (e == i || e >= end) return;
        const Token *t = &P->toks[e];
        if (!tok_is(t, TOK_OP, "=") && !is_augassign(t) && !(first && tok_is(t, TOK_OP, ":")))
            return;
        target_group(P, bad, i, end);
        if (!tok_is(t, TOK_OP, "=")) return;
        i = e + 1;
    }
}

/* import a.b as c, d / from m import (x as y, z) / ... as NAME */
static void bind_imports(Parser *P, Ast *bad, int i, int end) {
    bool from = tok_is(&P->toks[i], TOK_KEYWORD, "from"), item_start = true;
    for (i++; i < end && P->toks[i].kind != TOK_NEWLINE; i++) {
        const Token *t = &P->toks[i];
        bool before_as = i + 1 < end && tok_is(&t[1], TOK_KEYWORD, "as");
        if (from) {
            from = !tok_is(t, TOK_KEYWORD, "import");
        } else if (tok_is(t, TOK_OP, ",")) {
            item_start = true;
        } else if (tok_is(t, TOK_KEYWORD, "as") && i + 1 < end) {
            bind(P, bad, &t[1]);
        } else if (t->kind == TOK_NAME && item_start) {
            item_start = false;
            if (!before_as) bind(P, bad, t);
        }
    }
}

/* Names one logical line at token i binds; true if it opens a def or class. */
static bool bind_line(Parser *P, Ast *bad, int i, int end) {
    const Token *t = &P->toks[i];
    if (tok_is(t, TOK_KEYWORD, "async") && i + 1 < end) t = &P->toks[++i];
    if ((tok_is(t, TOK_KEYWORD, "def") || tok_is(t, TOK_KEYWORD, "class"))) {
        if (i + 1 < end) bind(P, bad, &t[1]);
        return true;
    }
    if (tok_is(t, TOK_KEYWORD, "import") || tok_is(t, TOK_KEYWORD, "from"))
        bind_imports(P, bad, i, end);
    else if (tok_is(t, TOK_KEYWORD, "for")) target_group(P, bad, i + 1, end);
    else if (t->kind == TOK_NAME || tok_is(t, TOK_OP, "(") || tok_is(t, TOK_OP, "["))
        bind_assignment(P, bad, i, end);
    for (; i < end && P->toks[i].kind != TOK_NEWLINE; i++) /* with/except ... as NAME */
        if (tok_is(&P->toks[i], TOK_KEYWORD, "as") && i + 1 < end &&
            !tok_is(t, TOK_KEYWORD, "import") && !tok_is(t, TOK_KEYWORD, "from"))
            bind(P, bad, &P->toks[i + 1]);
    return false;
}

/* Best effort: the names the statement in [start, end) would bind at module level (the
 * lines inside a def or class body bind nothing there). */
static void collect_binds(Parser *P, Ast *bad, int start, int end) {
    int depth = 0, inside = INT_MAX; /* lines deeper than `inside` are in a def/class body */
    for (int i = start; i < end; i++) {
        TokKind k = P->toks[i].kind;
        if (k == TOK_INDENT || k == TOK_DEDENT) {
            depth += k == TOK_INDENT ? 1 : -1;
            continue;
        }
        if (!line_start(P, i) || k == TOK_NEWLINE || tok_is(&P->toks[i], TOK_OP, "@")) continue;
        if (depth > inside) continue;
        inside = bind_line(P, bad, i, end) ? depth : INT_MAX;
    }
}

static int parse_bad_stmt(Parser *P, int start, AstList *out) {
    int target = P->err_pos > start ? P->err_pos : start + 1;
    int end = skip_statement(P, start, target);
    Ast *bad = mk(P, AST_BAD_STMT, P->toks[start].loc);
    bad->u.bad.error = P->err_text;
    collect_binds(P, bad, start, end);
    PUSH(P, *out, bad);
    return end;
}

/* ---- entry points ------------------------------------------------------------------ */

static Parser *parser_new(Ctx *ctx, const Source *src) {
    Parser *P = NEW(&ctx->arena, Parser);
    P->ctx = ctx;
    P->toks = lex_source(ctx, src, &P->ntoks);
    return P;
}

AstList parse_module(Ctx *ctx, const Source *src) {
    Parser *P = parser_new(ctx, src);
    AstList *out = NEW(&ctx->arena, AstList); /* not a local: it must survive longjmp */
    jmp_buf jb;
    P->recover = &jb;
    while (peek(P)->kind != TOK_EOF) {
        int start = P->pos;
        P->depth = 0;
        if (setjmp(jb) == 0) {
            AstList stmts = {0};
            parse_stmt(P, &stmts);
            for (int i = 0; i < stmts.len; i++) PUSH(P, *out, stmts.data[i]);
        } else {
            P->pos = parse_bad_stmt(P, start, out);
        }
    }
    P->recover = NULL;
    return *out;
}

Ast *parse_expression(Ctx *ctx, const Source *src) {
    Parser *P = parser_new(ctx, src);
    bool indented = peek(P)->kind == TOK_INDENT;
    if (indented) advance(P);
    Ast *e = parse_exprlist(P);
    if (peek(P)->kind == TOK_NEWLINE) advance(P);
    while (indented && peek(P)->kind == TOK_DEDENT) advance(P);
    if (peek(P)->kind != TOK_EOF)
        parse_fail(P, peek(P)->loc, "unexpected %s after the expression", tok_describe(P, peek(P)));
    return e;
}
