print("tempo-demo")
