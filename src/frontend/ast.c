/* ast.c - names of syntax tree kinds, for messages ("this expression is not supported
 * (list comprehension)") and dumps. */
#include "frontend/ast.h"

const char *ast_kind_name(AstKind k) {
    switch (k) {
    case AST_NAME: return "name";
    case AST_INT: return "integer literal";
    case AST_FLOAT: return "float literal";
    case AST_STR: return "string literal";
    case AST_TRUE: return "True";
    case AST_FALSE: return "False";
    case AST_NONE: return "None";
    case AST_ELLIPSIS: return "...";
    case AST_TUPLE: return "tuple";
    case AST_LIST: return "list";
    case AST_DICT: return "dict";
    case AST_ATTR: return "attribute";
    case AST_CALL: return "call";
    case AST_SUBSCRIPT: return "subscript";
    case AST_SLICE: return "slice";
    case AST_STARRED: return "starred expression";
    case AST_UNARY: return "unary operation";
    case AST_BINARY: return "binary operation";
    case AST_COMPARE: return "comparison";
    case AST_BOOLOP: return "boolean operation";
    case AST_IFEXP: return "conditional expression";
    case AST_LAMBDA: return "lambda";
    case AST_LISTCOMP: return "list comprehension";
    case AST_EXPR_STMT: return "expression statement";
    case AST_ASSIGN: return "assignment";
    case AST_AUGASSIGN: return "augmented assignment";
    case AST_ANNASSIGN: return "annotated assignment";
    case AST_DEF: return "def";
    case AST_RETURN: return "return";
    case AST_IF: return "if";
    case AST_FOR: return "for";
    case AST_WHILE: return "while";
    case AST_WITH: return "with";
    case AST_BREAK: return "break";
    case AST_CONTINUE: return "continue";
    case AST_PASS: return "pass";
    case AST_ASSERT: return "assert";
    case AST_IMPORT: return "import";
    case AST_IMPORT_FROM: return "from-import";
    case AST_GLOBAL: return "global";
    case AST_DEL: return "del";
    case AST_RAISE: return "raise";
    case AST_TRY: return "try";
    case AST_CLASS: return "class";
    case AST_BAD_STMT: return "statement with a syntax error";
    }
    return "syntax node";
}
