"""torchclaims: the claims of popular PyTorch learning material, as an executable specification."""
__version__ = "0.1.0"
