from .compiler import ASTSource, CompiledKernel, compile

__all__ = ["ASTSource", "CompiledKernel", "compile"]
