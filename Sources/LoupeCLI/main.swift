print("loupe")
