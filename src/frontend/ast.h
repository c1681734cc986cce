/* ast.h - tokens and the syntax tree of the Python subset (LANGUAGE.md section 2).
 *
 * The lexer follows Python's lexical rules: INDENT/DEDENT from indentation, implicit line
 * joining inside brackets and after a backslash, comments, all string prefixes and
 * quote styles (str values are decoded; f-strings are kept as raw text and are an
 * error only if a kernel evaluates one), int literals (dec/hex/oct/bin, underscores),
 * floats (incl. exponents), and every Python operator.
 *
 * The parser parses a whole module. A top-level statement that fails to parse does not
 * fail the module: it becomes AST_BAD_STMT carrying its error text and the names it
 * would bind (best effort: `NAME =`, `def NAME`, `class NAME`), and parsing resumes at
 * the next top-level statement. The evaluator reports the stored error only if a kernel
 * needs one of those names. Inside a def, a syntax error is an error of the def
 * (the whole def becomes AST_BAD_STMT binding the def's name).
 *
 * Not supported (a clean syntax error, hence AST_BAD_STMT at top level): async, await,
 * yield, walrus (:=), match statements, type parameter lists, complex literals, int
 * literals beyond int64, named escapes \N{...}, strings with a NUL character (\0).
 * f-strings nest as in Python 3.12 (PEP 701). Source text is UTF-8; identifiers are not
 * NFKC-normalized.
 *
 * Locations (1-based line and byte column): every node's loc is its first token. Binary
 * ops, comparisons, boolops, conditional expressions, calls, subscripts, attributes and
 * unparenthesized tuples start at their leftmost operand (at its '(' if that operand is
 * parenthesized); a parenthesized expression keeps its inner loc, a parenthesized tuple
 * starts at '('. Unary ops, lambda, starred, displays and comprehensions start at their
 * operator, keyword or bracket (a generator that is a call's only argument, at its
 * element). SLICE starts at its lower bound or ':'. Statements start at their keyword or
 * first target; DEF and CLASS at the `def`/`class` keyword (not at a decorator); an elif
 * at `elif`; BAD_STMT at the statement's first token (its first decorator's '@'). AstArg:
 * a parameter's or keyword argument's name, a call's `*`/`**`, a positional argument's
 * value. Desugared nodes (set/dict displays and comprehensions, see LISTCOMP) carry the
 * loc of the opening brace. */
#ifndef TILEC_AST_H
#define TILEC_AST_H

#include "base/base.h"

/* clang-format off */
#define TL_TOKENS(X)                                                               \
    X(TOK_EOF, "end of file") X(TOK_NEWLINE, "newline") X(TOK_INDENT, "indent")     \
    X(TOK_DEDENT, "dedent") X(TOK_NAME, "name") X(TOK_INT, "integer")               \
    X(TOK_FLOAT, "float") X(TOK_STRING, "string") X(TOK_OP, "operator")             \
    X(TOK_KEYWORD, "keyword")
/* clang-format on */

typedef enum TokKind {
#define X(e, s) e,
    TL_TOKENS(X)
#undef X
} TokKind;

typedef struct Token {
    TokKind kind;
    Loc loc;
    const char *text;  /* NAME/KEYWORD/OP spelling; STRING decoded value; number spelling */
    int64_t ival;      /* TOK_INT */
    double fval;       /* TOK_FLOAT */
    bool fstring;      /* TOK_STRING with an f prefix */
    const char *error; /* a literal the parser must reject (too large, 1j, 0777, \N{..}) */
} Token;

/* Tokenize src. Lexical errors call ctx_fail. tokens end with NEWLINE? DEDENT* EOF. */
Token *lex_source(Ctx *ctx, const Source *src, int *ntokens);

/* ---- syntax tree ----------------------------------------------------------------- */
/* clang-format off */
#define TL_AST_KINDS(X)                                                                  \
    /* expressions */                                                                   \
    X(AST_NAME) X(AST_INT) X(AST_FLOAT) X(AST_STR) X(AST_TRUE) X(AST_FALSE) X(AST_NONE) \
    X(AST_ELLIPSIS) X(AST_TUPLE) X(AST_LIST) X(AST_DICT) X(AST_ATTR) X(AST_CALL)         \
    X(AST_SUBSCRIPT) X(AST_SLICE) X(AST_STARRED) X(AST_UNARY) X(AST_BINARY)              \
    X(AST_COMPARE) X(AST_BOOLOP) X(AST_IFEXP) X(AST_LAMBDA) X(AST_LISTCOMP)             \
    /* statements */                                                                    \
    X(AST_EXPR_STMT) X(AST_ASSIGN) X(AST_AUGASSIGN) X(AST_ANNASSIGN) X(AST_DEF)          \
    X(AST_RETURN) X(AST_IF) X(AST_FOR) X(AST_WHILE) X(AST_WITH) X(AST_BREAK)            \
    X(AST_CONTINUE) X(AST_PASS) X(AST_ASSERT) X(AST_IMPORT) X(AST_IMPORT_FROM)          \
    X(AST_GLOBAL) X(AST_DEL) X(AST_RAISE) X(AST_TRY) X(AST_CLASS) X(AST_BAD_STMT)
/* clang-format on */

typedef enum AstKind {
#define X(e) e,
    TL_AST_KINDS(X)
#undef X
} AstKind;

const char *ast_kind_name(AstKind k); /* readable, for messages: "list comprehension" */

typedef struct Ast Ast;
typedef Vec(Ast *) AstList;

/* One call argument or def parameter. */
typedef struct AstArg {
    const char *name; /* keyword name, parameter name; NULL for positional call args */
    Ast *value;       /* call: the value; def: default value or NULL */
    Ast *annotation;  /* def parameters only; may be NULL */
    int star;         /* 1 for *args / *x, 2 for **kwargs / **x; a bare `*`: star 1, name NULL */
    Loc loc;
} AstArg;
typedef Vec(AstArg) AstArgList;

/* One `import a.b as c` / `from m import a as c` item. */
typedef struct AstAlias {
    const char *name;   /* dotted name, e.g. "tilelang.language" */
    const char *asname; /* NULL when absent */
} AstAlias;

struct Ast {
    AstKind kind;
    Loc loc;
    union {
        const char *name; /* NAME */
        int64_t ival;     /* INT */
        double fval;      /* FLOAT */
        struct {
            const char *value;
            bool fstring;
        } str;        /* STR (adjacent ones joined) */
        AstList elts; /* TUPLE, LIST */
        struct {
            AstList keys, values;
        } dict; /* DICT (key NULL: **value) */
        struct {
            Ast *value;
            const char *attr;
        } attr; /* ATTR */
        struct {
            Ast *func;
            AstArgList args;
        } call; /* CALL */
        struct {
            Ast *value;
            Ast *index;
        } subscript; /* SUBSCRIPT (index: TUPLE if a,b) */
        struct {
            Ast *lower, *upper, *step;
        } slice; /* SLICE, parts may be NULL */
        struct {
            Ast *value;
        } starred; /* STARRED */
        struct {
            const char *op;
            Ast *operand;
        } unary; /* UNARY: "-" "+" "not" "~" */
        struct {
            const char *op;
            Ast *left, *right;
        } binary; /* BINARY: + - * / // % ** << >> & | ^ @ */
        struct {
            Ast *left;
            Vec(const char *) ops;
            AstList comparators;
        } compare;
        /* COMPARE ops: "<" "<=" ">" ">=" "==" "!=" "in" "not in" "is" "is not" */
        struct {
            const char *op;
            AstList values;
        } boolop; /* BOOLOP "and"/"or" */
        struct {
            Ast *cond, *then, *orelse;
        } ifexp; /* IFEXP */
        struct {
            AstArgList params;
            Ast *body;
        } lambda; /* LAMBDA */
        struct {
            Ast *elt;
            Ast *target;
            Ast *iter;
            AstList ifs;
            AstList more;
            bool generator;
        } listcomp;
        /* LISTCOMP [elt for target in iter if ifs...]: further for-clauses are in `more`,
         * in order, each an AST_LISTCOMP with elt NULL (target, iter, ifs). generator:
         * written (elt for ...); evaluate it as a list. Desugared: {a, b} is
         * set([a, b]), {x for ...} is set(<generator>), {k: v for ...} is
         * dict(<generator of (k, v) tuples>) - AST_CALL of the NAME set/dict. */

        struct {
            Ast *value;
        } expr_stmt; /* EXPR_STMT, RETURN (value may be NULL) */
        /* RAISE also uses expr_stmt: the exception (may be NULL; `from cause` dropped) */
        struct {
            AstList targets;
            Ast *value;
        } assign; /* a = b = value */
        struct {
            const char *op;
            Ast *target;
            Ast *value;
        } augassign; /* op: "+=" ... */
        struct {
            Ast *target;
            Ast *annotation;
            Ast *value;
        } annassign; /* value may be NULL */
        struct {
            const char *name;
            AstArgList params;
            Ast *returns;
            AstList decorators;
            AstList body;
        } def; /* DEF */
        struct {
            Ast *cond;
            AstList body, orelse;
        } if_; /* IF (elif = nested IF in orelse), WHILE */
        struct {
            Ast *target;
            Ast *iter;
            AstList body, orelse;
        } for_;
        struct {
            AstList items;
            AstList targets;
            AstList body;
        } with; /* targets[i] may be NULL */
        struct {
            Ast *cond;
            Ast *msg;
        } assert_;
        struct {
            Vec(AstAlias) names;
            const char *module;
            int level;
        } import; /* IMPORT(_FROM) */
        struct {
            const char *name;
            AstList bases;
            AstList body;
            AstList decorators;
        } class_;     /* CLASS (keyword bases dropped) */
        AstList body; /* TRY (body only kept), DEL targets */
        struct {
            Vec(const char *) names;
            bool nonlocal;
        } global; /* GLOBAL (and nonlocal) */
        struct {
            const char *error;
            Vec(const char *) binds;
        } bad; /* BAD_STMT: error = formatted text */
    } u;
};

/* Parse a whole module. Lexical errors fail (ctx_fail); statement-level syntax errors at
 * top level become AST_BAD_STMT (see above). Returns the list of top-level statements. */
AstList parse_module(Ctx *ctx, const Source *src);

/* Parse a single expression (used for -D NAME=VALUE values); fails on any error or trailing
 * text. */
Ast *parse_expression(Ctx *ctx, const Source *src);

#endif
